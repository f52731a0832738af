// Runs the built `stowage` binary under /usr/bin/time -v: its output, exit code, wall time and
// maximum resident set size. Progress (stderr) is passed through, so a run shows it throughout.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

export interface BinaryRun {
  readonly code: number | null
  readonly stdout: string
  readonly seconds: number
  readonly maxRssMb: number
}

export function runBinary(args: string[]): Promise<BinaryRun> {
  const dir = mkdtempSync(join(tmpdir(), 'stowage-bench-'))
  const timeFile = join(dir, 'time.txt')
  const started = performance.now()
  const child = spawn('/usr/bin/time', ['-v', '-o', timeFile, process.execPath, CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000
      const report = readFileSync(timeFile, 'utf8')
      rmSync(dir, { recursive: true, force: true })
      const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(report)?.[1] ?? NaN)
      resolve({ code, stdout, seconds, maxRssMb: rssKb / 1024 })
    }),
  )
}
