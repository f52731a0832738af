import { readFile } from 'node:fs/promises'
import { ExitCode } from '../errors/exit-codes.js'
import { safeJson, safeText } from '../format/safe-text.js'
import { inspectBytes } from '../inspect/inspect-bytes.js'
import { inspectionJson, inspectionText } from '../inspect/print-inspection.js'
import { readEnvelope } from '../inspect/read-envelope.js'
import { writeOutput } from '../io/write-output.js'

/** Options of `stowage inspect`. */
export interface InspectOptions {
  /** Print JSON instead of text. Defaults to false. */
  readonly json?: boolean
  /** A file holding the preset dictionary of an envelope read from a file or standard input. Defaults to none. */
  readonly dictionary?: string
}

/**
 * `stowage inspect <source> [key] [field]`: prints an envelope's header, its Redis facts and its value.
 * @param source - a redis:// URL (with `key`), a file, or `-` for standard input.
 * @param key - the Redis key.
 * @param field - a field of a hash (a bundle), with a Redis URL.
 * @param options - see {@link InspectOptions}.
 * @returns {@link ExitCode.OK}, or {@link ExitCode.FAILED} when the bytes are not a readable envelope (the report says why).
 * @throws {StowageError} when the source cannot be read (see readEnvelope).
 */
export async function inspectCommand(source: string, key: string | undefined, field: string | undefined, options: InspectOptions): Promise<ExitCode> {
  const read = await readEnvelope(source, key, field)
  const given = options.dictionary === undefined ? undefined : new Uint8Array(await readFile(options.dictionary))
  const found = inspectBytes(read.bytes, read.dictionary ?? given)
  if (options.json) await writeOutput(safeJson(JSON.stringify(inspectionJson(read.source, found), null, 2)) + '\n', undefined, false)
  else await writeOutput(inspectionText(read.source, found, process.stdout.isTTY === true), undefined, false)
  if (found.error) {
    process.stderr.write(`stowage: ${found.error.code}: ${safeText(found.error.message)}\n`)
    return ExitCode.FAILED
  }
  return ExitCode.OK
}
