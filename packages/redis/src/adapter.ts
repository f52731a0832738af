/**
 * The Redis commands the store needs, over one client library. Keys given to one call of
 * `mget`, `del`, `setMany` and `getDelMany` share one hash slot (the store groups them).
 * Values go out as Buffers wrapping the caller's bytes (no copy) and come back as Uint8Arrays.
 */
export interface RedisAdapter {
  readonly kind: 'ioredis' | 'ioredis-cluster' | 'node-redis' | 'node-redis-cluster'
  readonly isCluster: boolean
  get(key: string): Promise<Uint8Array | null>
  /** GET and PTTL in one round trip: the value, and its remaining TTL in ms (-1: none, -2: no key). */
  getWithPttl(key: string): Promise<[Uint8Array | null, number]>
  /** MGET and a PTTL of each key in one round trip, for keys of one slot: each value with its PTTL as {@link RedisAdapter.getWithPttl} gives it. */
  getManyWithPttl(keys: readonly string[]): Promise<Array<[Uint8Array | null, number]>>
  /**
   * SET key value [PX ttl], returning the old value's head: its first 40 bytes when it was a string
   * (enough to tell a chunk manifest), empty for another type, null when there was none. Never the
   * whole old value.
   */
  setHead(key: string, value: Uint8Array, ttl: number | undefined): Promise<Uint8Array | null>
  /** {@link RedisAdapter.setHead} pipelined, for keys of one slot. */
  setHeadMany(entries: ReadonlyArray<{ key: string; value: Uint8Array; ttl: number | undefined }>): Promise<Array<Uint8Array | null>>
  /** Pipelined plain SET [PX ttl] for keys of one slot (fresh chunk keys: nothing to learn of their old value). */
  setMany(entries: ReadonlyArray<{ key: string; value: Uint8Array; ttl: number | undefined }>): Promise<void>
  /** DEL of each key, returning heads as {@link RedisAdapter.setHead} does; keys of one slot. */
  delHeadMany(keys: readonly string[]): Promise<Array<Uint8Array | null>>
  /** Pipelined PEXPIRE (or PERSIST with `ms` undefined) for keys of one slot. */
  expireMany(keys: readonly string[], ms: number | undefined): Promise<void>
  mget(keys: readonly string[]): Promise<Array<Uint8Array | null>>
  /**
   * Runs a Lua script over `keys` (of one slot): EVALSHA, and EVAL once when the server's script
   * cache lacks it. Resolves the reply as Redis gives it, bulk strings as Buffers.
   */
  evalScript(script: string, keys: readonly string[], args: ReadonlyArray<string | Uint8Array>): Promise<unknown>
  del(keys: readonly string[]): Promise<number>
  hget(key: string, field: string): Promise<Uint8Array | null>
  /** Every field of a hash; field names decoded as UTF-8. */
  hgetall(key: string): Promise<Map<string, Uint8Array>>
  /** HSET then PEXPIRE (or PERSIST without a TTL) in one MULTI. */
  hset(key: string, field: string, value: Uint8Array, ttl: number | undefined): Promise<void>
  hdel(key: string, field: string): Promise<number>
  /** Every key matching `pattern`, on every master. */
  scan(pattern: string, count: number): AsyncIterable<string>
  quit(): Promise<void>
}

/** One Redis call as the store makes it: with its deadline, its failure a StowageError. */
export type RedisCall = <T>(what: string, fn: (adapter: RedisAdapter) => Promise<T>) => Promise<T>

/** A Buffer over the same memory as `bytes`: ioredis sends a plain Uint8Array as its text "1,2,3". */
export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** A plain Uint8Array over the same memory as a reply Buffer. */
export function fromBuffer(buffer: Buffer | null | undefined): Uint8Array | null {
  return buffer == null ? null : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
}

/** A flat [field, value, field, value, …] reply as a Map, field names read as UTF-8. */
export function pairs(flat: readonly Buffer[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>()
  for (let i = 0; i + 1 < flat.length; i += 2) out.set((flat[i] as Buffer).toString('utf8'), fromBuffer(flat[i + 1]) as Uint8Array)
  return out
}
