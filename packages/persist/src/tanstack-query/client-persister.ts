// The whole-client form (`persistQueryClient`, `PersistQueryClientProvider`): TanStack hands the
// persister the whole dehydrated client on every cache change. Saves wait for `throttleTime`, then
// write only what changed, packed into segments and switched in by one manifest write
// (save-client.ts); a restore reads the segments the manifest lists in one batch
// (restore-client.ts). The layout is described in client-layout.ts.
import { checkOptionNames, StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store } from '@stowage/core'
import type { PersistedClient, Persister } from '@tanstack/query-persist-client-core'
import { deleteMany } from '../shared/batch.js'
import { resolveCodec } from '../shared/resolve-codec.js'
import { noticeName, resolveStore } from '../shared/resolve-store.js'
import { withPageLock } from '../shared/page-lock.js'
import { removalNotices, type RemovalNotices } from '../shared/removal-notices.js'
import { DEFAULT_SLICE_MS } from '../shared/yield-to-main.js'
import { legacyIndexKey, lockName, manifestKey, newId, readManifest, readRemoval, removedKey, segmentKey } from './client-layout.js'
import { restoreClient } from './restore-client.js'
import { saveClient } from './save-client.js'
import { SegmentBook, type SegmentContext } from './segment-book.js'

/** Default `key` of {@link createStowageClientPersister}. */
export const DEFAULT_CLIENT_KEY = 'tanstack-query-client'
/** Default `throttleTime` of {@link createStowageClientPersister}, as TanStack's async-storage persister: 1000 ms. */
export const DEFAULT_THROTTLE_TIME = 1000
/**
 * Default `segmentBytes` of {@link createStowageClientPersister}: about 512 KiB of MessagePack per
 * segment. From 256 KiB a segment is deflated and inflated by the browser's native streams; a few
 * dozen records of this size are read in one IndexedDB transaction.
 */
export const DEFAULT_SEGMENT_BYTES = 512 * 1024

/** Options of {@link createStowageClientPersister}. Every field is optional. */
export interface StowageClientPersisterOptions {
  /** Where the records go. Defaults to an `@stowage/idb` store over the database `dbName`. */
  readonly store?: Store
  /** The IndexedDB database of the store created when `store` is not given. Defaults to `'stowage-persist'`. */
  readonly dbName?: string
  /** The key under which the manifest and the segments are stored. Defaults to `'tanstack-query-client'`. */
  readonly key?: string
  /**
   * A codec or codec options, for the segments and the manifest. Defaults to {@link PERSIST_CODEC_OPTIONS}.
   */
  readonly codec?: Codec | CodecOptions
  /** Milliseconds to wait after a change before writing; changes meanwhile are written together. 0 writes on the next task. Defaults to 1000. */
  readonly throttleTime?: number
  /**
   * Lets the page run between segments once this many ms of encoding or decoding have passed (one
   * segment is one step); a save also sizes its segments so that each encodes in about twice this
   * long, at the speed it measured on the segment before (never under 64 KiB). Defaults to 8.
   */
  readonly sliceMs?: number
  /**
   * About how many bytes of MessagePack one segment holds: a segment takes as many queries as fit
   * at the size per query of the segments encoded before it (at least one). Defaults to 524288 (512 KiB).
   */
  readonly segmentBytes?: number
  /** Receives a failed write (a {@link StowageError}: the store's `STORE_ERROR` or `LIMIT_EXCEEDED`, the codec's `UNSUPPORTED_TYPE` naming the query). Defaults to `console.error`. */
  readonly onError?: (error: StowageError) => void
}

/** A TanStack Query {@link Persister} that writes what changed, in segments, with a way to wait for pending writes. */
export interface StowageClientPersister extends Persister {
  /** The store the manifest and the segments live in. */
  readonly store: Store
  /** Writes what is waiting for `throttleTime` now; resolves when every pending write has ended. */
  flush(): Promise<void>
  /**
   * Deletes the stored client (a sign-out; `signOut` from `@stowage/http` calls it; TanStack calls
   * it for an expired or busted client): waits for a save that is running, drops one waiting for
   * `throttleTime` (its `persistClient` resolves) and every client handed over until it resolves;
   * a restore still running hands over nothing, and one begun meanwhile waits for it. Saves and
   * removals of every page of the origin take turns (a Web Lock; a removal waits 10 s at most for
   * this page's save and as long again for the lock, then deletes anyway). It tells the other open
   * pages at once (a BroadcastChannel) and leaves a removal record for the others: a page told or
   * that finds it (it may hold the signed-out user's queries) saves nothing more for as long as it
   * lives, and tells its `onError` once (STORE_ERROR); a reload saves again.
   * A page that removed the client itself takes the removal it finds when it is next handed a
   * client (its own, or another page's made since) as the one it knows.
   * A save still running when the removal stops waiting for it writes no manifest.
   */
  removeClient(): Promise<void>
}

/**
 * How long a removal (a sign-out) waits for a save of this page, and then for another tab's save to
 * let go of the page lock, before it deletes anyway: a sign-out never hangs on a stuck store.
 */
const REMOVE_WAIT_MS = 10_000

function toError(e: unknown, what: string): StowageError {
  return StowageError.isInstance(e) ? e : new StowageError(StowageErrorCode.STORE_ERROR, `${what} failed: ${String((e as Error)?.message ?? e)}`, { cause: e })
}

class ClientPersister implements StowageClientPersister {
  readonly store: Store
  private readonly book = new SegmentBook()
  private latest: PersistedClient | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | undefined
  private readonly waiters: Array<() => void> = []
  // Removals begun: a restore that began before one hands over nothing.
  private removals = 0
  // Removals running: a client handed over meanwhile is not saved.
  private removing = 0
  // The removal running, which a restore waits for.
  private removal: Promise<void> | undefined
  // The first look at the removal record, from the first client handed over (again after this
  // page's own removal): a removal by another page after it (a sign-out there) stops this page's
  // saves, whether or not it ever restored.
  private firstLook: Promise<void> | undefined
  // Whether a client was handed over during this page's own removal (and dropped): the page may
  // hold queries from after that removal began, so it knows that removal's id, not a later one.
  private handedDuringRemoval = false
  // Removals other pages tell at once (removal-notices.ts), beside the record they leave.
  private notices: RemovalNotices | undefined
  // Restores running, and the removals other pages told while one ran: such a restore may have
  // read the user that page signed out, and hands nothing over.
  private restoring = 0
  private heardInRestore = 0

  constructor(
    private readonly ctx: SegmentContext,
    private readonly throttleTime: number,
    // The BroadcastChannel of removal notices: the pages of this persisted client.
    private readonly noticeName: string,
  ) {
    this.store = ctx.store
  }

  // From the first call on, another page's removal stops this page's saves as soon as it begins,
  // as its record would at the next save (SegmentBook.see), also when that record is never
  // written or is gone by then. This page's own removal, running, decides instead. A restore
  // running hands nothing over. A page handed a client before its first look at the record has
  // landed knows no removal to compare with: any removal now came after what it holds, so it stops.
  private listen(): void {
    this.notices ??= removalNotices(this.noticeName, ({ id }) => {
      if (this.removing > 0) return
      if (this.restoring > 0) this.heardInRestore++
      if (!this.book.removalKnown && this.firstLook !== undefined) this.book.stopped = true
      else this.book.see(id)
    })
  }

  persistClient = (client: PersistedClient): Promise<void> => {
    this.listen()
    // Handed over during a removal (a sign-out): the signed-out user's queries, not saved.
    if (this.removing > 0) {
      this.handedDuringRemoval = true
      return Promise.resolve()
    }
    this.firstLook ??= Promise.resolve()
      .then(() => this.ctx.store.get(removedKey(this.ctx.key)))
      .then(
        (bytes) => void this.book.see(readRemoval(this.ctx.segmentCodec, bytes)),
        () => {}, // the save's own read looks again
      )
    this.latest = client
    const done = new Promise<void>((resolve) => this.waiters.push(resolve))
    if (this.timer === undefined && this.running === undefined) this.schedule()
    return done
  }

  restoreClient = async (): Promise<PersistedClient | undefined> => {
    this.listen()
    await this.flush()
    // A restore begun during a removal reads what is left after it.
    while (this.removal !== undefined) await this.removal.catch(() => {}) // its caller hears how it ended
    await this.firstLook
    const removals = this.removals
    const heard = this.heardInRestore
    const read = new SegmentBook()
    this.restoring++
    let client: PersistedClient | undefined
    try {
      client = await restoreClient(this.ctx, read)
    } finally {
      this.restoring--
    }
    // A removal began while the restore ran (this page's, or another's it was told of): what it
    // read belongs to the user signed out.
    if (removals !== this.removals || heard !== this.heardInRestore) return undefined
    this.book.adopt(read)
    return client
  }

  removeClient = (): Promise<void> => {
    this.listen()
    this.removals++
    if (this.removing === 0) this.handedDuringRemoval = false
    this.removing++
    clearTimeout(this.timer)
    this.timer = undefined
    this.latest = undefined
    // Saves waiting for throttleTime are dropped: their callers hear that they ended.
    this.waiters.splice(0).forEach((resolve) => resolve())
    const removal = this.removeWhenFree().finally(() => {
      this.removing--
      if (this.removal === removal) this.removal = undefined
    })
    this.removal = removal
    return removal
  }

  // After this page's running save (for REMOVE_WAIT_MS at most), under the page lock (waited for as long).
  private async removeWhenFree(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([this.running, new Promise<void>((resolve) => (timer = setTimeout(resolve, REMOVE_WAIT_MS)))])
    clearTimeout(timer)
    await withPageLock(lockName(this.ctx.key), () => this.removeStored(), REMOVE_WAIT_MS)
  }

  // Tells the other pages (which may hold the same user's queries) to save nothing more, deletes
  // every record of the stored client, then writes the removal record that tells pages later.
  private async removeStored(): Promise<void> {
    const { store, key, segmentCodec } = this.ctx
    const removal = newId()
    this.notices?.tell(removal)
    const garbage = [...this.book.garbage]
    this.book.reset()
    if (store.clear) {
      await store.clear(`${key}:`)
    } else {
      const bytes = await store.get(manifestKey(key))
      let segments: readonly string[] = []
      try {
        if (bytes !== undefined) segments = readManifest(segmentCodec, bytes).segments
      } catch {
        // A damaged manifest lists nothing that can be found.
      }
      await deleteMany(store, [...segments.map((id) => segmentKey(key, id)), ...garbage, manifestKey(key), legacyIndexKey(key)])
    }
    await store.set(removedKey(key), segmentCodec.encode(removal))
    this.book.known = true
    // This page's own removal: it saves on (what it is handed next is the app's, cleared or not).
    // Holding nothing from before it, it looks at the record again when it is next handed a client
    // and takes whatever removal is there as its own (every tab signing out at a session's expiry,
    // two tabs discarding the same expired client); one handed over during the removal fixes it now.
    this.book.removal = removal
    // The flag stays set until a removal begins with none running: an overlapping removal of this
    // page keeps what a client handed over during the first one told.
    this.book.removalKnown = this.handedDuringRemoval
    this.firstLook = undefined
  }

  flush = async (): Promise<void> => {
    while (this.timer !== undefined || this.running !== undefined) {
      if (this.timer !== undefined && this.running === undefined) {
        clearTimeout(this.timer)
        this.timer = undefined
        this.start()
      }
      await this.running
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.start()
    }, this.throttleTime)
  }

  private start(): void {
    const client = this.latest
    this.latest = undefined
    const waiters = this.waiters.splice(0)
    if (client === undefined) {
      waiters.forEach((resolve) => resolve())
      return
    }
    this.running = (this.firstLook ?? Promise.resolve())
      .then(() => saveClient(this.ctx, this.book, client))
      .catch((e: unknown) => this.ctx.onError(toError(e, 'persisting the query client')))
      .finally(() => {
        this.running = undefined
        waiters.forEach((resolve) => resolve())
        // Changes that came while writing: write them after the throttle time.
        if (this.latest !== undefined) this.schedule()
      })
  }
}

/**
 * A TanStack Query {@link Persister} for `persistQueryClient` / `PersistQueryClientProvider` that
 * stores the client in a few records sized for IndexedDB: segments of about `segmentBytes` of
 * MessagePack, each one value holding its queries, deflated as a whole, and a small manifest that
 * lists them. A save encodes again only the segments that hold a changed or removed query, writes
 * them under new keys, then switches the manifest: a save left midway restores as the save before
 * it. Each segment is encoded or decoded in one step, and the page runs between steps once they
 * have lasted `sliceMs`. A restore reads every segment in one batch; a segment or query that is
 * damaged, or is not a query, is left out alone. TanStack checks
 * `buster` and `maxAge` against the manifest. Quota: the store's job (`@stowage/idb` evicts least
 * recently used entries, or keeps its `maxBytes` budget); a write that still fails reaches `onError`.
 *
 * @param options - see {@link StowageClientPersisterOptions}.
 * @returns a {@link StowageClientPersister}. `persistClient` resolves once the save is written (or
 * failed: failures go to `onError`, never to TanStack's subscriber, which does not catch them).
 * `restoreClient` rejects with the decoder's codes or CORRUPT when the manifest is damaged (TanStack
 * then removes the persisted client); a damaged segment or query record is left out.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createStowageClientPersister(options: StowageClientPersisterOptions = {}): StowageClientPersister {
  // A misspelt dbName or key would persist into the default database, shared with other apps of the origin.
  checkOptionNames('createStowageClientPersister', options, ['store', 'dbName', 'key', 'codec', 'throttleTime', 'sliceMs', 'segmentBytes', 'onError'] satisfies ReadonlyArray<keyof StowageClientPersisterOptions>)
  const { key = DEFAULT_CLIENT_KEY, throttleTime = DEFAULT_THROTTLE_TIME, sliceMs = DEFAULT_SLICE_MS, segmentBytes = DEFAULT_SEGMENT_BYTES } = options
  if (typeof key !== 'string' || key === '') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'key must be a non-empty string')
  if (!(Number.isFinite(throttleTime) && throttleTime >= 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'throttleTime must be a number of ms ≥ 0')
  if (!(Number.isFinite(sliceMs) && sliceMs > 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'sliceMs must be a positive number of ms')
  if (!(Number.isInteger(segmentBytes) && segmentBytes > 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'segmentBytes must be a positive integer')
  const given = options.codec
  const isCodec = given !== undefined && typeof (given as Codec).encode === 'function'
  const segmentCodec = resolveCodec(given)
  const recordCodec = isCodec ? segmentCodec : resolveCodec({ ...(given as CodecOptions | undefined), compress: 'never' })
  return new ClientPersister(
    {
      store: resolveStore(options.store, options.dbName),
      recordCodec,
      segmentCodec,
      key,
      segmentBytes,
      sliceMs,
      onError: options.onError ?? ((error: StowageError) => console.error(error)),
    },
    throttleTime,
    noticeName('stowage-persist', key, options),
  )
}
