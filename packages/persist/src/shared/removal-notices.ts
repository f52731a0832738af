// A sign-out in one tab must stop the other tabs of the origin from writing the signed-out user's
// queries back. What a page leaves in the store for them (the whole-client persister's removal
// record) is read only at their next save, and is not there when its write failed or the store
// evicted it since; a notice over a BroadcastChannel reaches every open page at once, whatever
// became of the store. Where a runtime has no BroadcastChannel (Cloudflare Workers), or refuses
// one, pages are told by what is stored alone.

/** The notices of one name: see {@link removalNotices}. */
export interface RemovalNotices {
  /** Tells the other pages listening under this name that a removal with this id has begun. */
  tell(id: string): void
}

const SILENT: RemovalNotices = { tell() {} }

/**
 * Listens for removals other pages tell under `name` (pages of the same origin; this page's own
 * notices are not heard), from now on, for as long as the page lives.
 *
 * @param name - the BroadcastChannel's name.
 * @param heard - called with the id of each removal another page tells.
 * @returns how to tell the others of this page's removals.
 */
export function removalNotices(name: string, heard: (id: string) => void): RemovalNotices {
  if (typeof BroadcastChannel !== 'function') return SILENT
  let channel: BroadcastChannel
  try {
    channel = new BroadcastChannel(name)
  } catch {
    return SILENT
  }
  // Node: an open channel would keep the process alive.
  ;(channel as { unref?: () => void }).unref?.()
  channel.onmessage = (event: MessageEvent) => {
    const id = (event.data as { removal?: unknown } | null)?.removal
    if (typeof id === 'string') heard(id)
  }
  return {
    tell(id) {
      try {
        channel.postMessage({ removal: id })
      } catch {
        // A closed channel (the page unloading): the removal record still tells.
      }
    },
  }
}
