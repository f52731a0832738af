// Values stored as chunks plus a manifest (chunks.ts, chunk-names.ts, FORMAT.md §6): how they are
// written, read back, and let go when replaced or deleted. The store decides which values go here.
import { StowageError, StowageErrorCode, type StoreFence } from '@stowage/core'
import type { RedisCall } from './adapter.js'
import { chunkNamer, legacyChunkNamer, type ChunkNamer } from './chunk-names.js'
import { setHeadFenced } from './fenced-set.js'
import { checksum, newGeneration, readManifest, startsWithMagic, writeManifest, type Manifest } from './chunks.js'
import { PERSIST_IF_MANIFEST } from './scripts.js'
import { bySlot } from './slots.js'

// Chunks outlive their manifest a little, so a reader that got the manifest just before it
// expired can still fetch them.
const CHUNK_GRACE = 10_000
// Chunks carry a TTL until their manifest is written: a write that fails midway leaves nothing
// behind for longer than this. A value without TTL has its chunks made persistent afterwards.
const PENDING_CHUNK_TTL = 3_600_000
// Chunks of a replaced or deleted value expire this long after, instead of going at once, so a
// reader that read the old manifest a moment before still finds every chunk (no torn reads).
const REPLACED_CHUNK_TTL = 30_000
// What a manifest may announce: chunks of 1 KiB to 512 MiB (the chunkSize bounds), a value no
// larger than a Uint8Array can be here.
const MIN_CHUNK_SIZE = 1024
const MAX_CHUNK_SIZE = 512 * 1024 * 1024
const MAX_CHUNKED_LENGTH = 2 ** 32
// How many chunks go out in one pipeline: bounds the bytes in flight for a huge value.
const CHUNKS_PER_WRITE = 4
const DELETE_BATCH = 500

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** The chunked values of one store. */
export class ChunkedValues {
  constructor(
    private readonly call: RedisCall,
    private readonly clustered: boolean,
    private readonly chunkSize: number,
  ) {}

  /** Whether `value` is stored as chunks: larger than the chunk size, or starting with the manifest's magic. */
  needsChunks(value: Uint8Array): boolean {
    return value.length > this.chunkSize || startsWithMagic(value)
  }

  /**
   * Stores `value` as chunks plus a manifest under `key`; with `fence`, only while that lease
   * is the writer's (checked when the manifest is swapped in).
   * @throws {StowageError} LEASE_LOST when the fence no longer holds (the chunks then expire).
   */
  async write(key: string, value: Uint8Array, ttl: number | undefined, fence?: StoreFence): Promise<void> {
    // Chunks first, under a fresh generation; then the manifest in one SET, so a reader sees the
    // old value or the new one, never a mix; then the old generation's chunks are set to expire.
    const generation = newGeneration()
    const name = chunkNamer(key, generation)
    const count = Math.max(1, Math.ceil(value.length / this.chunkSize))
    const chunkTtl = ttl === undefined ? PENDING_CHUNK_TTL : ttl + CHUNK_GRACE
    for (let first = 0; first < count; first += CHUNKS_PER_WRITE) {
      const batch: Array<{ key: string; value: Uint8Array; ttl: number | undefined }> = []
      for (let i = first; i < Math.min(count, first + CHUNKS_PER_WRITE); i++) {
        batch.push({ key: name(i), value: value.subarray(i * this.chunkSize, (i + 1) * this.chunkSize), ttl: chunkTtl })
      }
      await this.call('SET chunk', (a) => a.setMany(batch))
    }
    const manifest: Manifest = { generation, count, length: value.length, crc: checksum(value) }
    const bytes = writeManifest(manifest)
    let old: Uint8Array | null
    try {
      old = fence === undefined ? await this.call('SET manifest', (a) => a.setHead(key, bytes, ttl)) : await setHeadFenced(this.call, key, bytes, ttl, fence)
    } catch (e) {
      if (StowageError.isInstance(e) && e.code === StowageErrorCode.LEASE_LOST) {
        for (const batch of chunkBatches(manifest, DELETE_BATCH, name)) await this.expireChunks(batch, REPLACED_CHUNK_TTL)
      }
      throw e
    }
    // The manifest now names the chunks: a value without TTL keeps them for good, but only while
    // this manifest is the key's, checked in the same script as the PERSIST. A delete or overwrite
    // landing between the swap and this step sets the chunks to expire, and this step then leaves
    // them so; a separate PERSIST would have made them persistent after it, with no manifest left.
    // (Should a step fail, the call rejects and the value is gone once the chunks expire: never a
    // torn read.)
    if (ttl === undefined) {
      for (const batch of chunkBatches(manifest, DELETE_BATCH, name)) {
        const kept = await this.call('PERSIST chunks', (a) => a.evalScript(PERSIST_IF_MANIFEST, [key, ...batch], [bytes]))
        if (Number(kept) !== 1) break
      }
    }
    await this.drop(key, old, generation)
  }

  /**
   * Sets the chunks of a replaced or deleted manifest (`head`, the old value's first bytes) to
   * expire a little later: a reader that got the old manifest still finds them all. `keep` is the
   * generation just written, whose chunks stay.
   */
  async drop(key: string, head: Uint8Array | null, keep: string | undefined): Promise<void> {
    if (head === null || !startsWithMagic(head)) return
    const manifest = readManifest(head)
    if (manifest === undefined || manifest.generation === keep || !plausible(manifest)) return
    // Chunks of either naming: a manifest does not say which (chunk-names.ts).
    for (const namer of [chunkNamer, legacyChunkNamer]) {
      const name = namer(key, manifest.generation)
      for (const batch of chunkBatches(manifest, DELETE_BATCH, name)) await this.expireChunks(batch, REPLACED_CHUNK_TTL)
    }
  }

  /**
   * A plain value as it is (at once, without a promise: every read of a plain value comes through
   * here); a manifest replaced by the value its chunks hold.
   * @throws {StowageError} CORRUPT for a damaged manifest or chunks that do not match it (as a rejection).
   */
  resolve(key: string, bytes: Uint8Array, retried = false): Uint8Array | Promise<Uint8Array | undefined> {
    return startsWithMagic(bytes) ? this.resolveManifest(key, bytes, retried) : bytes
  }

  private async resolveManifest(key: string, bytes: Uint8Array, retried: boolean): Promise<Uint8Array | undefined> {
    const manifest = readManifest(bytes)
    if (manifest === undefined || !plausible(manifest)) {
      throw new StowageError(StowageErrorCode.CORRUPT, `the chunk manifest under ${key} is damaged (${manifest === undefined ? 'not 40 bytes' : `${manifest.count} chunks for ${manifest.length} bytes`})`)
    }
    // Chunks named by this version, else by an older one (chunk-names.ts): data written before stays readable.
    const parts = (await this.readChunks(key, manifest, chunkNamer(key, manifest.generation))) ?? (await this.readChunks(key, manifest, legacyChunkNamer(key, manifest.generation)))
    if (parts === undefined) {
      // Chunks gone: the manifest was replaced long enough ago that they expired, or expired with
      // it. A newer manifest may be there: read once more.
      if (retried) return undefined
      const again = await this.call('GET', (a) => a.get(key))
      return again === null ? undefined : this.resolve(key, again, true)
    }
    const length = parts.reduce((n, p) => n + p.length, 0)
    if (length !== manifest.length) throw new StowageError(StowageErrorCode.CORRUPT, `the chunks under ${key} hold ${length} bytes, their manifest says ${manifest.length}`)
    const value = concat(parts, manifest.length)
    if (checksum(value) !== manifest.crc) throw new StowageError(StowageErrorCode.CORRUPT, `the chunks under ${key} do not match their manifest's CRC`)
    return value
  }

  // Chunks of one value share a slot, except legacy-named ones of keys such as '}a' (chunk-names.ts):
  // on a cluster they are grouped by slot, one MGET or pipeline per group.
  private async getChunks(names: readonly string[]): Promise<Array<Uint8Array | null>> {
    const out = new Array<Uint8Array | null>(names.length)
    await Promise.all(
      bySlot(names, this.clustered).map(async (group) => {
        const values = await this.call('MGET chunks', (a) => a.mget(group.map((i) => names[i] as string)))
        group.forEach((i, j) => (out[i] = values[j] ?? null))
      }),
    )
    return out
  }

  private async expireChunks(names: readonly string[], ms: number | undefined): Promise<void> {
    await Promise.all(bySlot(names, this.clustered).map((group) => this.call('PEXPIRE chunks', (a) => a.expireMany(group.map((i) => names[i] as string), ms))))
  }

  private async readChunks(key: string, manifest: Manifest, name: ChunkNamer): Promise<Uint8Array[] | undefined> {
    const parts: Uint8Array[] = []
    let length = 0
    for (const batch of chunkBatches(manifest, CHUNKS_PER_WRITE, name)) {
      const values = await this.getChunks(batch)
      for (const value of values) {
        if (value === null) return undefined
        length += value.length
        if (length > manifest.length) throw new StowageError(StowageErrorCode.CORRUPT, `the chunks under ${key} hold more than the ${manifest.length} bytes their manifest says`)
        parts.push(value)
      }
    }
    return parts
  }
}

// Whether a manifest's count and length can be true: chunks of 1 KiB to 512 MiB, and a length a
// reader can hold. A damaged manifest announcing 2^32 − 1 chunks is refused before any is asked for.
function plausible({ count, length }: Manifest): boolean {
  if (count < 1 || length > MAX_CHUNKED_LENGTH) return false
  return count <= Math.max(1, Math.ceil(length / MIN_CHUNK_SIZE)) && count >= Math.ceil(length / MAX_CHUNK_SIZE)
}

// A manifest's chunk keys, `size` at a time (never all at once: a value may have many chunks).
function* chunkBatches(manifest: Manifest, size: number, name: ChunkNamer): Generator<string[]> {
  for (let first = 0; first < manifest.count; first += size) {
    const batch: string[] = []
    for (let i = first; i < Math.min(manifest.count, first + size); i++) batch.push(name(i))
    yield batch
  }
}
