// The bytes a folder's files take, for what a browser profile holds on disk.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** The sizes of every file under `dir`, summed. */
export function folderBytes(dir: string): number {
  let n = 0
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const s = statSync(path)
    n += s.isDirectory() ? folderBytes(path) : s.size
  }
  return n
}
