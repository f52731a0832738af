// What fetchCached remembers of the copies it kept: the validator each was kept with (or that none
// is kept), by cache namespace and key, in a small synchronous storage (localStorage in a page).
// With it the next fetchCached of the key can send its request at once, before the store has
// answered (opening an IndexedDB database takes 5–25 ms on a first screen), with the validator it
// will most likely find. Only a guess: fetch-cached.ts checks it against the stored copy before a
// 304 counts. Where nothing is known of a key in a namespace this browser has kept copies of (a
// hint evicted or lost, a copy some other way stored), the call waits for its store as it did
// without hints, so a kept copy is still revalidated; only a namespace with nothing known of it
// (a first visit) sends its first request at once without a validator.

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

/**
 * What is known of a key: `{ validator }` for a copy kept with that validator, `{ validator:
 * undefined }` for no copy (the key's last answer was not kept, or the namespace has nothing kept
 * in this browser), `undefined` for nothing known (wait for the store).
 */
export type HintGuess = { readonly validator: HintedValidator | undefined } | undefined

/** The storage item that holds every hint, as one JSON object. */
export const HINTS_ITEM = 'stowage:fetch-validators'
/** Hints kept at most; the least recently changed go first. */
export const MAX_HINTS = 256
/** The longest the item may grow, in characters (UTF-16 code units, as browsers count quota). */
export const MAX_HINTS_LENGTH = 64 * 1024
// Keys longer than this get no hint: the item stays small however long the app's URLs are.
const MAX_HINTED_KEY = 2048
// What a hint of "no copy" holds.
const NO_COPY = '-'
// The marker of a namespace this browser has kept fetchCached copies in: its id starts with this.
const NAMESPACE_MARK = '\u0001'

// A validator fetch-cached.ts can send as a header field: printable ASCII, as keptForm keeps them.
const SENDABLE = /^[\x20-\x7e]{1,255}$/

function encodeHint(validator: HintedValidator | undefined): string {
  if (validator === undefined) return NO_COPY
  return (validator.kind === 'etag' ? 'e' : 'm') + validator.value
}

function decodeHint(text: unknown): HintGuess {
  if (text === NO_COPY) return { validator: undefined }
  if (typeof text !== 'string') return undefined
  const kind = text[0] === 'e' ? 'etag' : text[0] === 'm' ? 'last-modified' : undefined
  const value = text.slice(1)
  // Anything else (damaged, or written by something else) is nothing known.
  return kind === undefined || !SENDABLE.test(value) ? undefined : { validator: { kind, value } }
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
 * The hints in `storage`, read once per instance (one fetchCached call). Every failure of the
 * storage (blocked, full, damaged JSON) leaves nothing known: the caller then waits for its store.
 */
export class ValidatorHints {
  private hints: Record<string, unknown> | undefined

  constructor(private readonly storage: HintStorage) {}

  /** What is known of `key` of `namespace` (see {@link HintGuess}). */
  guess(namespace: string, key: string): HintGuess {
    if (key.length > MAX_HINTED_KEY) return undefined
    const hints = this.load()
    const known = decodeHint(hints[hintId(namespace, key)])
    if (known !== undefined) return known
    // A namespace with no copy kept in this browser: none to find.
    return hints[NAMESPACE_MARK + namespace] === undefined ? { validator: undefined } : undefined
  }

  /** Remembers the validator the kept copy of `key` has (`undefined`: no copy is kept). */
  remember(namespace: string, key: string, validator: HintedValidator | undefined): void {
    if (key.length > MAX_HINTED_KEY || (validator !== undefined && !SENDABLE.test(validator.value))) return
    const hints = this.load()
    const id = hintId(namespace, key)
    const mark = NAMESPACE_MARK + namespace
    const after = encodeHint(validator)
    if (hints[id] === after && hints[mark] !== undefined) return
    delete hints[id]
    hints[id] = after
    hints[mark] = 1
    this.save(hints)
  }

  /** Forgets what is known of `key` of `namespace`: the next call waits for its store. */
  forget(namespace: string, key: string): void {
    const hints = this.load()
    const id = hintId(namespace, key)
    if (hints[id] === undefined) return
    delete hints[id]
    this.save(hints)
  }

  /** Forgets what is known of `namespace` and of its child namespaces (a sign-out wiped them). */
  forgetNamespace(namespace: string): void {
    const hints = this.load()
    const within = (ns: string) => ns === namespace || ns.startsWith(`${namespace}:`)
    const ids = Object.keys(hints).filter((id) => (id.startsWith(NAMESPACE_MARK) ? within(id.slice(1)) : within(id.slice(0, id.indexOf('\u0000')))))
    if (ids.length === 0) return
    for (const id of ids) delete hints[id]
    this.save(hints)
  }

  private load(): Record<string, unknown> {
    if (this.hints !== undefined) return this.hints
    // A null-prototype object: ids are URLs, and one named __proto__ must stay an own key.
    const hints = Object.create(null) as Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(this.storage.getItem(HINTS_ITEM) ?? '{}')
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) Object.assign(hints, parsed)
    } catch {
      // Nothing known.
    }
    return (this.hints = hints)
  }

  // Writes the hints back, the least recently changed left out past MAX_HINTS or MAX_HINTS_LENGTH
  // (namespace marks stay: forgetting one would send a first request without a validator).
  private save(hints: Record<string, unknown>): void {
    const ids = Object.keys(hints).filter((id) => !id.startsWith(NAMESPACE_MARK))
    let i = 0
    for (; i < ids.length - MAX_HINTS; i++) delete hints[ids[i] as string]
    let text = JSON.stringify(hints)
    // Too long: the oldest go, an eighth of those left at a time, until it fits.
    while (text.length > MAX_HINTS_LENGTH && i < ids.length) {
      const end = Math.min(ids.length, i + Math.max(1, Math.ceil((ids.length - i) / 8)))
      for (; i < end; i++) delete hints[ids[i] as string]
      text = JSON.stringify(hints)
    }
    try {
      this.storage.setItem(HINTS_ITEM, text)
    } catch {
      // Full or blocked: what this call learnt is not kept; later calls wait for their store where
      // the namespace is known, and for a namespace that is not, ask without a validator.
    }
  }
}
