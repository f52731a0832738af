import { readFile } from 'node:fs/promises'
import { invalidInput } from '../errors/report-failure.js'

/**
 * Reads all of a file, or of standard input for `-`.
 * @param source - a path, or `-` for standard input.
 * @returns the bytes.
 * @throws {StowageError} INVALID_ARGUMENT when the file cannot be read, or standard input is a terminal or empty.
 */
export async function readInput(source: string): Promise<Uint8Array> {
  if (source === '-') {
    // A terminal would wait silently for bytes nobody is going to type.
    if (process.stdin.isTTY) throw invalidInput('standard input is a terminal: pipe the input in (… | stowage …) or give a file')
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    if (chunks.length === 0) throw invalidInput('standard input is empty')
    return Buffer.concat(chunks)
  }
  try {
    return await readFile(source)
  } catch (e) {
    throw invalidInput(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, e)
  }
}
