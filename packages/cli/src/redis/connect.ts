import { StowageError, StowageErrorCode } from '@stowage/core'
import { Redis } from 'ioredis'
import { invalidInput } from '../errors/report-failure.js'

/** A connected client, and what to say when Redis fails. */
export interface RedisConnection {
  readonly client: Redis
  /** The URL without its password, for messages and reports. */
  readonly label: string
  /** Wraps a failure of a command into `STORE_ERROR`, naming the server and the last connection error. */
  failure(error: unknown): StowageError
  /** Closes the connection (QUIT, or disconnect when Redis is gone). */
  close(): Promise<void>
}

// Query parameters that may carry a credential. ioredis turns every parameter of a URL into a
// client option, so `?password=` and `?username=` log in as surely as `user:password@` does
// (and `?sentinelPassword=`, …): any name that could hold one is hidden.
const CREDENTIAL_PARAMETER = /pass|user|auth|secret|token|cred|key/i

/**
 * The URL with every credential a client would use replaced by `***`: the user and password of
 * its userinfo, and the value of any query parameter whose name could hold one (`password`,
 * `username`, `sentinelPassword`, …). Anything else (not a redis:// or rediss:// URL, or one that
 * does not parse) loses all before an `@` and all after a `?`.
 * @param url - a redis:// or rediss:// URL.
 * @returns the URL fit to print.
 */
export function redactUrl(url: string): string {
  // Anything but a redis:// URL (a mistyped one, `user:pw@host`) is only echoed in an error: all
  // before an `@` and all after a `?` go.
  const blunt = () => url.replace(/^([^@/?#]*:\/\/)?[^/?#]*@/, '$1***@').replace(/\?[\s\S]*$/, '?***')
  if (!/^rediss?:\/\//i.test(url)) return blunt()
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return blunt()
  }
  if (u.username) u.username = '***'
  if (u.password) u.password = '***'
  for (const name of new Set(u.searchParams.keys())) if (CREDENTIAL_PARAMETER.test(name)) u.searchParams.set(name, '***')
  return u.toString().replace(/\/$/, '')
}

/**
 * Connects to Redis, failing fast: a server that does not answer, or goes away later, gives a
 * `STORE_ERROR` within a few seconds instead of commands queued while ioredis reconnects forever.
 * @param url - a redis:// or rediss:// URL.
 * @returns the connection.
 * @throws {StowageError} INVALID_ARGUMENT for a URL that is not redis:// or rediss://; STORE_ERROR when Redis cannot be reached.
 */
export async function connectRedis(url: string): Promise<RedisConnection> {
  if (!/^rediss?:\/\//.test(url)) throw invalidInput(`not a Redis URL: ${redactUrl(url)} (expected redis://host:port or rediss://…)`)
  const label = redactUrl(url)
  let lastError: unknown
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 5_000,
    // One retry per command, and three reconnect attempts over about a second: the CLI reports a
    // Redis that went away instead of waiting for it (ioredis would otherwise retry forever).
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => (times > 3 ? null : 100 * 2 ** times),
    enableOfflineQueue: true,
  })
  // Without a listener ioredis prints every connection error itself.
  client.on('error', (error: unknown) => (lastError = error))
  const failure = (error: unknown): StowageError => {
    if (StowageError.isInstance(error)) return error
    if (isReplyError(error)) return new StowageError(StowageErrorCode.STORE_ERROR, `Redis at ${label} refused a command: ${describe(error)}`, { cause: error })
    return new StowageError(StowageErrorCode.STORE_ERROR, `Redis at ${label} went away: ${describe(lastError ?? error)}`, { cause: error })
  }
  try {
    await client.connect()
  } catch (e) {
    client.disconnect()
    throw new StowageError(StowageErrorCode.STORE_ERROR, `cannot reach Redis at ${label}: ${describe(lastError ?? e)}`, { cause: e })
  }
  return {
    client,
    label,
    failure,
    async close() {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect())
      else client.disconnect()
    },
  }
}

/**
 * Whether a command's error is Redis's answer about that command (WRONGTYPE, …), as opposed to
 * a failed connection.
 * @param error - an error from a command or a pipeline entry.
 * @returns true for a reply error.
 */
export function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError'
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code
    return code && !error.message.includes(code) ? `${code} ${error.message}` : error.message
  }
  return String(error)
}
