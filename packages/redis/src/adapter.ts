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
  /** SET key value [PX ttl] GET: the old value comes back in the same round trip. */
  setGet(key: string, value: Uint8Array, ttl: number | undefined): Promise<Uint8Array | null>
  /** Pipelined SET … GET for keys of one slot. */
  setGetMany(entries: ReadonlyArray<{ key: string; value: Uint8Array; ttl: number | undefined }>): Promise<Array<Uint8Array | null>>
  /** Pipelined GETDEL for keys of one slot; OTHER_TYPE for a key that holds a hash (a bundle), which GETDEL refuses. */
  getDelMany(keys: readonly string[]): Promise<Array<Uint8Array | null | typeof OTHER_TYPE>>
  mget(keys: readonly string[]): Promise<Array<Uint8Array | null>>
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

/** What GETDEL meets on a key that is not a string: a bundle's hash. */
export const OTHER_TYPE: unique symbol = Symbol('not a string')

export function isWrongType(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith('WRONGTYPE')
}

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
