// A sign-out in one tab must stop the other tabs of the origin from writing the signed-out user's
// queries back. What a page leaves in the store for them (the whole-client persister's removal
// record) is read only at their next save, and is not there when its write failed or the store
// evicted it since; a notice over a BroadcastChannel reaches every open page at once, whatever
// became of the store. Persisters of one name in the same page (or process) are told directly.
// Where a runtime has no BroadcastChannel (Cloudflare Workers), or refuses one, other pages are
// told by what is stored alone.
//
// One channel per name, kept for the life of the page or process, and each persister's listener
// held weakly: a persister nothing else refers to (a server that makes one per request) is
// collected, where a channel of its own, never closed, would keep it and its store alive.

/** The notices of one name: see {@link removalNotices}. */
export interface RemovalNotices {
  /** Tells the others listening under this name that a removal with this id has begun. */
  tell(id: string): void
}

type Listener = (id: string) => void

interface Hub {
  readonly channel: BroadcastChannel | undefined
  readonly listeners: Set<WeakRef<Listener>>
  // The size at which the next `listen` drops the listeners already collected.
  sweepAt: number
}

const hubs = new Map<string, Hub>()

function deliver(hub: Hub, id: string, except?: Listener): void {
  for (const ref of hub.listeners) {
    const listener = ref.deref()
    if (listener === undefined) hub.listeners.delete(ref)
    else if (listener !== except) listener(id)
  }
}

function open(name: string): BroadcastChannel | undefined {
  if (typeof BroadcastChannel !== 'function') return undefined
  try {
    const channel = new BroadcastChannel(name)
    // Node: an open channel would keep the process alive.
    ;(channel as { unref?: () => void }).unref?.()
    return channel
  } catch {
    return undefined
  }
}

function hubOf(name: string): Hub {
  let hub = hubs.get(name)
  if (hub !== undefined) return hub
  const channel = open(name)
  const made: Hub = { channel, listeners: new Set(), sweepAt: 32 }
  if (channel !== undefined) {
    channel.onmessage = (event: MessageEvent) => {
      const id = (event.data as { removal?: unknown } | null)?.removal
      if (typeof id === 'string') deliver(made, id)
    }
  }
  hubs.set(name, (hub = made))
  return hub
}

/**
 * Listens for the removals others tell under `name` (other pages of the origin, and other
 * persisters of this page; not this one's own), from now on. `heard` is held weakly: the caller
 * keeps the returned object for as long as it wants to hear.
 *
 * @param name - the BroadcastChannel's name.
 * @param heard - called with the id of each removal another persister tells.
 * @returns how to tell the others of this persister's removals.
 */
export function removalNotices(name: string, heard: (id: string) => void): RemovalNotices {
  const hub = hubOf(name)
  if (hub.listeners.size >= hub.sweepAt) {
    for (const ref of hub.listeners) if (ref.deref() === undefined) hub.listeners.delete(ref)
    hub.sweepAt = Math.max(32, 2 * hub.listeners.size)
  }
  hub.listeners.add(new WeakRef(heard))
  return {
    tell(id) {
      try {
        hub.channel?.postMessage({ removal: id })
      } catch {
        // A closed channel (the page unloading): the removal record still tells.
      }
      // Refers to `heard`, so that it lives as long as this object.
      deliver(hub, id, heard)
    },
  }
}
