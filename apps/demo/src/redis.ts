// Where the demo's Redis comes from: REDIS_URL; else 127.0.0.1:6379 if it answers; else a
// redis-server binary on the PATH, started on a free port and stopped on exit; else none (the
// embedded memory store).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RedisChoice {
  readonly url: string | undefined
  /** How it was found, for the banner. */
  readonly how: 'REDIS_URL' | 'localhost:6379' | 'started redis-server' | 'none'
  stop(): Promise<void>
}

export function ping(host: string, port: number, ms = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(ms, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')))
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function startRedisServer(): Promise<RedisChoice | undefined> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'stowage-demo-'))
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' })
  let missing = false
  child.once('error', () => (missing = true)) // ENOENT: no redis-server on the PATH
  const deadline = Date.now() + 5_000
  while (!missing && child.exitCode === null && Date.now() < deadline) {
    if (await ping('127.0.0.1', port)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        how: 'started redis-server',
        async stop() {
          child.kill('SIGTERM')
          rmSync(dir, { recursive: true, force: true })
        },
      }
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
  return undefined
}

export async function chooseRedis(): Promise<RedisChoice> {
  const nothing = async () => {}
  const fromEnv = process.env.REDIS_URL
  if (fromEnv) {
    const { hostname, port } = new URL(fromEnv)
    if (await ping(hostname, Number(port || 6379), 1000)) return { url: fromEnv, how: 'REDIS_URL', stop: nothing }
    console.warn(`REDIS_URL=${fromEnv} does not answer; looking for another Redis`)
  }
  if (await ping('127.0.0.1', 6379)) return { url: 'redis://127.0.0.1:6379', how: 'localhost:6379', stop: nothing }
  return (await startRedisServer()) ?? { url: undefined, how: 'none', stop: nothing }
}
