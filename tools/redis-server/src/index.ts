// Real Redis servers for the tests, the benchmarks and the demo: found, or started from the
// redis-server binary (Debian's redis-server package; scripts/bootstrap.sh installs it). Never a mock.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RedisServer {
  readonly port: number
  readonly url: string
  stop(): Promise<void>
  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, as on a stalled host. */
  pause(): void
  /** Thaws a paused server (SIGCONT). */
  resume(): void
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Whether a Redis answers PING at host:port within `ms`. */
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

async function waitFor(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * Starts a throwaway redis-server (nothing saved to disk) on `port`, or a free one.
 * @throws Error when redis-server is not installed or does not answer within `timeout` ms (10 s).
 */
export async function startRedisServer(options: { port?: number; cluster?: boolean; timeout?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort())
  const dir = mkdtempSync(join(tmpdir(), 'stowage-redis-'))
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning']
  if (options.cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000')
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' })
  let missing: Error | undefined
  child.once('error', (e) => (missing = e)) // ENOENT: not installed
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    await waitFor(async () => {
      if (missing) throw new Error('redis-server is not installed: run ./scripts/bootstrap.sh (Debian package redis-server)', { cause: missing })
      return ping('127.0.0.1', port)
    }, `redis-server on port ${port}`, options.timeout)
  } catch (e) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause() {
      child.kill('SIGSTOP')
    },
    resume() {
      child.kill('SIGCONT')
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * The Redis the tests and benchmarks use: `REDIS_URL` if set; else one already answering on
 * 127.0.0.1:6379; else one of our own, started here. They never FLUSH a server: each test uses its
 * own key prefix (or its own server).
 * @returns its URL, and `stop`, which stops only a server this started.
 */
export async function findOrStartRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = process.env.REDIS_URL
  if (given) return { url: given, stop: async () => {} }
  if (await ping('127.0.0.1', 6379)) return { url: 'redis://127.0.0.1:6379', stop: async () => {} }
  const server = await startRedisServer()
  return { url: server.url, stop: () => server.stop() }
}

/** Starts three cluster-enabled servers and joins them into one cluster of three masters. */
export async function startRedisCluster(): Promise<{ nodes: Array<{ host: string; port: number }>; stop(): Promise<void> }> {
  const servers = await Promise.all([0, 1, 2].map(() => startRedisServer({ cluster: true })))
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' })
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`)
  await waitFor(async () => {
    const info = spawnSync('redis-cli', ['-p', String(servers[0]!.port), 'cluster', 'info'], { encoding: 'utf8' })
    return info.stdout.includes('cluster_state:ok')
  }, 'the cluster to be ok')
  return {
    nodes: servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
    async stop() {
      await Promise.all(servers.map((s) => s.stop()))
    },
  }
}
