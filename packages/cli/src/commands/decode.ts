import { readFile } from 'node:fs/promises'
import { ExitCode } from '../errors/exit-codes.js'
import { decodeExplained } from '../inspect/decode-explained.js'
import { toJsonData } from '../format/tagged-json.js'
import { readInput } from '../io/read-input.js'
import { writeOutput } from '../io/write-output.js'
import { safeJson } from '../format/safe-text.js'

/** Options of `stowage decode`. */
export interface DecodeOptions {
  /** Where to write the JSON; standard output when undefined or `-`. Defaults to standard output. */
  readonly output?: string
  /** Write what JSON cannot hold as `{"$stowage": …}` objects instead of refusing it. Defaults to false. */
  readonly tagged?: boolean
  /** Indent the JSON by this many spaces; 0 for one line. Defaults to 2. */
  readonly indent?: number
  /** A file holding the preset dictionary the envelope was written with. Defaults to none. */
  readonly dictionary?: string
}

/**
 * `stowage decode [input]`: envelope bytes to JSON. Without `--tagged`, a value JSON cannot hold
 * exactly (Map, Set, Date, BigInt, typed arrays, undefined, NaN, -0, …) is refused with
 * UNSUPPORTED_TYPE naming where it sits, rather than printed as something else.
 * @param input - an envelope file, or `-` for standard input. Defaults to `-`.
 * @param options - see {@link DecodeOptions}.
 * @returns {@link ExitCode.OK}.
 * @throws {StowageError} what `decode` throws (BAD_MAGIC, CHECKSUM_MISMATCH, TRUNCATED, …); UNSUPPORTED_TYPE (see above); INVALID_ARGUMENT.
 */
export async function decodeCommand(input: string | undefined, options: DecodeOptions): Promise<ExitCode> {
  const dictionary = options.dictionary === undefined ? undefined : new Uint8Array(await readFile(options.dictionary))
  const value = decodeExplained(await readInput(input ?? '-'), dictionary)
  const data = toJsonData(value, options.tagged === true)
  await writeOutput(safeJson(JSON.stringify(data, null, options.indent ?? 2)) + '\n', options.output, false)
  return ExitCode.OK
}
