// Spawns the real built binary, `node dist/cli.js …`, and collects what it says.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { inject, onTestFinished } from 'vitest'

export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stdoutBytes: Buffer
  readonly stderr: string
}

/** Starts the binary; the caller reads its streams and waits with `finished`. */
export function startCli(args: string[], input?: Uint8Array | string): { child: ChildProcessWithoutNullStreams; finished: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } })
  const out: Buffer[] = []
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => out.push(d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.stdin.end(input)
  const finished = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => {
      const stdoutBytes = Buffer.concat(out)
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr })
    }),
  )
  return { child, finished }
}

/** Runs the binary to its end. */
export function runCli(args: string[], input?: Uint8Array | string): Promise<CliResult> {
  return startCli(args, input).finished
}

/** Resolves once `text` appears on the child's stderr. */
export function stderrShows(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    let seen = ''
    const listen = (d: Buffer | string) => {
      seen += d.toString()
      if (pattern.test(seen)) {
        child.stderr.off('data', listen)
        resolve()
      }
    }
    child.stderr.on('data', listen)
  })
}

/** A key prefix no other test uses. */
export function uniquePrefix(name: string): string {
  return `cli-test:${name}:${randomBytes(4).toString('hex')}:`
}

/** A client on the run's own Redis, closed when the test ends. */
export function redisClient(url = inject('redisUrl')): Redis {
  const client = new Redis(url)
  onTestFinished(async () => {
    await client.quit().catch(() => client.disconnect())
  })
  return client
}

/** A stack trace line, which the CLI must never print. */
export const STACK_LINE = /^\s+at .+\(.+:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m
