import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { encode, StowageError } from '@stowage/core'
import { ExitCode } from '../errors/exit-codes.js'
import { invalidInput } from '../errors/report-failure.js'
import { fromTaggedJson } from '../format/tagged-json.js'
import { readInput } from '../io/read-input.js'
import { writeOutput } from '../io/write-output.js'

/** Options of `stowage encode`. */
export interface EncodeOptions {
  /** Where to write the envelope; standard output when undefined or `-`. Defaults to standard output. */
  readonly output?: string
  /** Encode the default export of this ES module instead of JSON input. Defaults to none. */
  readonly module?: string
  /** Read `{"$stowage": …}` objects as the types `decode --tagged` writes. Defaults to false. */
  readonly tagged?: boolean
}

/**
 * `stowage encode [input]`: JSON (or a module's default export) to envelope bytes.
 * @param input - a JSON file, or `-` for standard input. Defaults to `-`.
 * @param options - see {@link EncodeOptions}.
 * @returns {@link ExitCode.OK}.
 * @throws {StowageError} INVALID_ARGUMENT (unreadable input, not JSON, a module without a default export); what `encode` throws.
 */
export async function encodeCommand(input: string | undefined, options: EncodeOptions): Promise<ExitCode> {
  let value: unknown
  if (options.module !== undefined) {
    if (input !== undefined) throw invalidInput('give either an input file or --module, not both')
    let loaded: { default?: unknown }
    try {
      loaded = (await import(pathToFileURL(resolve(options.module)).href)) as { default?: unknown }
    } catch (e) {
      throw invalidInput(`cannot load module ${options.module}: ${(e as Error).message}`, e)
    }
    if (!('default' in loaded)) throw invalidInput(`module ${options.module} has no default export`)
    value = loaded.default
  } else {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(await readInput(input ?? '-'))
    try {
      value = JSON.parse(text)
    } catch (e) {
      throw invalidInput(`${input === undefined || input === '-' ? 'standard input' : input} is not JSON: ${(e as Error).message}`, e)
    }
  }
  if (options.tagged) value = fromTaggedJson(value)
  let bytes: Uint8Array
  try {
    bytes = encode(value)
  } catch (e) {
    throw StowageError.isInstance(e) ? e : invalidInput((e as Error).message, e)
  }
  await writeOutput(bytes, options.output, true)
  return ExitCode.OK
}
