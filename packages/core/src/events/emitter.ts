// The one event emitter of Stowage: the Cache, its circuit breaker and the IndexedDB store all
// use it, so listeners behave the same everywhere (a listener's error never reaches the emitter).

/** A typed event emitter: `Events` maps each event name to what its listeners receive. */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(event: never) => void>>()

  /** Listens to `event`; returns a function that stops listening. */
  on<E extends keyof Events>(event: E, listener: (event: Events[E]) => void): () => void {
    let set = this.listeners.get(event)
    if (set === undefined) this.listeners.set(event, (set = new Set()))
    set.add(listener as (event: never) => void)
    return () => {
      set.delete(listener as (event: never) => void)
    }
  }

  /** Calls every listener of `event` with `payload`; listener errors are dropped. */
  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    const set = this.listeners.get(event)
    if (set === undefined) return
    for (const listener of set) {
      try {
        ;(listener as (event: Events[E]) => void)(payload)
      } catch {
        // An observer must never break what it observes.
      }
    }
  }
}
