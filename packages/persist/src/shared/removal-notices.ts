// A sign-out in one tab must stop the other tabs of the origin from writing the signed-out user's
// queries back. What a page leaves in the store for them (the whole-client persister's removal
// record) is read only at their next save, and is not there when its write failed or the store
// evicted it since; a notice over a BroadcastChannel reaches every open page at once, whatever
// became of the store. It has no order against the store's own events, though: a page may hear
// it after writes of its own that landed after the removal's delete (see query-persister.ts).
//
// Only where there are tabs: a runtime without IndexedDB (a server, Cloudflare Workers) has none,
// and there persisters of different users' stores under one name must not hear each other (a
// BroadcastChannel reaches every channel of its name in the process). Each persister has a channel
// of its own (so that persisters of one page hear each other, as pages do), which refers to the
// persister weakly and is closed once the persister is collected: a channel left open keeps what
// it refers to alive for as long as the page or process runs.

import { newId } from './new-id.js'

/** A removal another persister told of. */
export interface RemovalNotice {
  /** The removal's id. */
  readonly id: string
}

/** The notices of one persister: see {@link removalNotices}. */
export interface RemovalNotices {
  /** Tells the others listening under this name that a removal with this id begins now. */
  tell(id: string): void
}

const SILENT: RemovalNotices = { tell() {} }

const closeWhenCollected = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<BroadcastChannel>((channel) => channel.close()) : undefined

// The channel's handler, made in a scope of its own: a closure made in removalNotices would share
// that function's scope with `tell`, which refers to `heard`, and an open channel would keep it.
function hearWeakly(channel: BroadcastChannel, listener: WeakRef<(notice: RemovalNotice) => void>): void {
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data as { removal?: unknown } | null
    if (typeof data?.removal === 'string') listener.deref()?.({ id: data.removal })
  }
}

/**
 * How long a page remembers its own writes for a removal it is told of late (ms): a notice has no
 * order against the store's events, so writes of the page that landed after the other page's
 * delete, before the notice came, are deleted when it comes.
 */
export const TOLD_LATE_MS = 10_000

// The removals of this page that overlap in time (a sign-out removing several persisters at once)
// share one id, so that each takes the others' notices for its own removal; another page's, or a
// later one of this page, has another.
let overlapping: { readonly id: string; open: number } | undefined

/**
 * A removal of this page begins: its id (shared with the removals of this page running now) and
 * the function that ends it.
 */
export function beginRemoval(): { readonly id: string; end(): void } {
  const batch = (overlapping ??= { id: newId(), open: 0 })
  batch.open++
  let ended = false
  return {
    id: batch.id,
    end() {
      if (ended) return
      ended = true
      if (--batch.open === 0 && overlapping === batch) overlapping = undefined
    },
  }
}

/** Whether this runtime has pages of an origin that tell each other of removals (it has IndexedDB): not a server. */
export function hasPages(): boolean {
  return typeof indexedDB !== 'undefined'
}

/**
 * Listens for the removals other persisters tell under `name` (in other pages of the origin, and
 * in this one), from now on. `heard` is held weakly: the caller keeps the returned object for as
 * long as it wants to hear, and once neither is reachable the channel is closed.
 *
 * @param name - the BroadcastChannel's name.
 * @param heard - called with each removal another persister tells.
 * @returns how to tell the others of this persister's removals (nothing where there are no tabs).
 */
export function removalNotices(name: string, heard: (notice: RemovalNotice) => void): RemovalNotices {
  if (!hasPages() || typeof BroadcastChannel !== 'function') return SILENT
  let channel: BroadcastChannel
  try {
    channel = new BroadcastChannel(name)
  } catch {
    return SILENT
  }
  // Node: an open channel would keep the process alive.
  ;(channel as { unref?: () => void }).unref?.()
  const listener = new WeakRef(heard)
  hearWeakly(channel, listener)
  closeWhenCollected?.register(heard, channel)
  return {
    tell(id) {
      // `heard` is referred to here, so that it lives as long as this object.
      if (listener.deref() !== heard) return
      try {
        channel.postMessage({ removal: id })
      } catch {
        // A closed channel (the page unloading): the removal record still tells.
      }
    },
  }
}
