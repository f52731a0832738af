/**
 * The Redis commands the store needs, over one client library. Keys given to one call of
 * `mget`, `del`, `setMany` and `getDelMany` share one hash slot (the store groups them).
 * Values go out as Buffers wrapping the caller's bytes (no copy) and come back as Uint8Arrays.
 */
export interface RedisAdapter {
  readonly kind: 'ioredis' | 'ioredis-cluster' | 'node-redis'
  readonly isCluster: boolean
  get(key: string): Promise<Uint8Array | null>
  /** SET key value [PX ttl] GET: the old value comes back in the same round trip. */
  setGet(key: string, value: Uint8Array, ttl: number | undefined): Promise<Uint8Array | null>
  /** Pipelined SET … GET for keys of one slot. */
  setGetMany(entries: ReadonlyArray<{ key: string; value: Uint8Array; ttl: number | undefined }>): Promise<Array<Uint8Array | null>>
  /** Pipelined GETDEL for keys of one slot. */
  getDelMany(keys: readonly string[]): Promise<Array<Uint8Array | null>>
  mget(keys: readonly string[]): Promise<Array<Uint8Array | null>>
  del(keys: readonly string[]): Promise<number>
  /** Every key matching `pattern`, on every master. */
  scan(pattern: string, count: number): AsyncIterable<string>
  quit(): Promise<void>
}

/** A Buffer over the same memory as `bytes`: ioredis sends a plain Uint8Array as its text "1,2,3". */
export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** A plain Uint8Array over the same memory as a reply Buffer. */
export function fromBuffer(buffer: Buffer | null | undefined): Uint8Array | null {
  return buffer == null ? null : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
}
