// What fetchCached remembers of the copies it kept: the validator each was kept with, by cache
// namespace and key, in a small synchronous storage (localStorage in a page). With it the next
// fetchCached of the key can send its request at once, before the store has answered (opening an
// IndexedDB database takes 5–25 ms on a first screen), with the validator it will most likely find.
// Only a guess: fetch-cached.ts checks it against the stored copy before a 304 counts, and a wrong
// or lost hint costs one request more or a full answer instead of a 304, never a wrong value.

/** Where the hints live: the part of the Web Storage API they use (`localStorage` fits). */
export interface HintStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/** The validator a hint holds, as fetch-cached.ts sends it. */
export interface HintedValidator {
  readonly kind: 'etag' | 'last-modified'
  readonly value: string
}

/** The storage item that holds every hint, as one JSON object. */
export const HINTS_ITEM = 'stowage:fetch-validators'
/** Hints kept at most; the least recently changed go first. */
export const MAX_HINTS = 256

// One hint: its kind's letter, then the validator.
function encodeHint(validator: HintedValidator): string {
  return (validator.kind === 'etag' ? 'e' : 'm') + validator.value
}

function decodeHint(text: unknown): HintedValidator | undefined {
  if (typeof text !== 'string' || text.length < 2) return undefined
  const kind = text[0] === 'e' ? 'etag' : text[0] === 'm' ? 'last-modified' : undefined
  return kind === undefined ? undefined : { kind, value: text.slice(1) }
}

// The hint of an entry: its namespace and key, which neither holds a NUL.
function hintId(namespace: string, key: string): string {
  return `${namespace}\u0000${key}`
}

/** The storage fetchCached uses by default: `localStorage` where the page has one and may use it. */
export function defaultHintStorage(): HintStorage | undefined {
  try {
    // A sandboxed frame or a browser with storage blocked throws on the property itself.
    const storage = (globalThis as { localStorage?: HintStorage }).localStorage
    return storage !== undefined && storage !== null && typeof storage.getItem === 'function' ? storage : undefined
  } catch {
    return undefined
  }
}

/**
 * The hints in `storage`. Every failure of the storage (blocked, full, damaged JSON) leaves no hint:
 * the caller then waits for its store, as it would without hints.
 */
export class ValidatorHints {
  constructor(private readonly storage: HintStorage) {}

  /** The validator last kept for `key` of `namespace`, or undefined when none is known. */
  read(namespace: string, key: string): HintedValidator | undefined {
    return decodeHint(this.load()[hintId(namespace, key)])
  }

  /** Remembers the validator the kept copy of `key` has (`undefined`: no copy is kept). */
  remember(namespace: string, key: string, validator: HintedValidator | undefined): void {
    const hints = this.load()
    const id = hintId(namespace, key)
    const before = hints[id]
    const after = validator === undefined ? undefined : encodeHint(validator)
    // Unchanged (a 304, or no copy either way): nothing to write.
    if (before === after) return
    delete hints[id]
    if (after !== undefined) hints[id] = after
    const ids = Object.keys(hints)
    for (let i = 0; i < ids.length - MAX_HINTS; i++) delete hints[ids[i] as string]
    this.save(hints)
  }

  /** Forgets the hints of `namespace` and of its child namespaces (a sign-out wiped them). */
  forgetNamespace(namespace: string): void {
    const hints = this.load()
    const ids = Object.keys(hints).filter((id) => id.startsWith(`${namespace}\u0000`) || id.startsWith(`${namespace}:`))
    if (ids.length === 0) return
    for (const id of ids) delete hints[id]
    this.save(hints)
  }

  private load(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(this.storage.getItem(HINTS_ITEM) ?? '{}')
      // A null-prototype copy: ids are URLs, and one named __proto__ must stay an own key.
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.assign(Object.create(null) as Record<string, unknown>, parsed) : Object.create(null)
    } catch {
      return Object.create(null) as Record<string, unknown>
    }
  }

  private save(hints: Record<string, unknown>): void {
    try {
      this.storage.setItem(HINTS_ITEM, JSON.stringify(hints))
    } catch {
      // Full or blocked: the next fetchCached waits for its store, as without hints.
    }
  }
}
