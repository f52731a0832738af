import { writeFile } from 'node:fs/promises'
import { invalidInput } from '../errors/report-failure.js'

/**
 * Writes bytes or text to a file, or to standard output when `target` is undefined or `-`.
 * Binary output is refused on a terminal, where it would only garble the screen.
 * @param data - what to write.
 * @param target - a path, `-` or undefined for standard output.
 * @param binary - whether `data` is binary (refused on a terminal).
 * @throws {StowageError} INVALID_ARGUMENT when the file cannot be written, or binary output would go to a terminal.
 */
export async function writeOutput(data: Uint8Array | string, target: string | undefined, binary: boolean): Promise<void> {
  if (target === undefined || target === '-') {
    if (binary && process.stdout.isTTY) throw invalidInput('refusing to write binary envelope bytes to a terminal: pipe them, or give -o <file>')
    await new Promise<void>((resolve, reject) => process.stdout.write(data, (e) => (e ? reject(e) : resolve())))
    return
  }
  try {
    await writeFile(target, data)
  } catch (e) {
    throw invalidInput(`cannot write ${target}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, e)
  }
}
