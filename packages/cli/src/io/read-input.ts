import { readFile } from 'node:fs/promises'
import { invalidInput } from '../errors/report-failure.js'

/**
 * Reads all of a file, or of standard input for `-`.
 * @param source - a path, or `-` for standard input.
 * @returns the bytes.
 * @throws {StowageError} INVALID_ARGUMENT when the file cannot be read.
 */
export async function readInput(source: string): Promise<Uint8Array> {
  if (source === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }
  try {
    return await readFile(source)
  } catch (e) {
    throw invalidInput(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, e)
  }
}
