// What fetchCached remembers of the shared copies it kept: the validator each was kept with, by
// cache namespace and key (an answer not kept forgets its key; a user's partition keeps none), in a small synchronous storage (localStorage in a page).
// With it the next fetchCached of the key can send its request at once, before the store has
// answered (opening an IndexedDB database takes 5–25 ms on a first screen), with the validator it
// will most likely find. Only a guess: fetch-cached.ts checks it against the stored copy before a
// 304 counts. Where nothing is known of a key in a namespace this browser has kept copies of (a
// hint evicted or lost, a copy some other way stored), the call waits for its store as it did
// without hints, so a kept copy is still revalidated; only a namespace with nothing known of it
// (a first visit) sends its first request at once without a validator.

import { MAX_VALIDATOR_LENGTH, type HttpValidator } from '@stowage/core'

/** Where the hints live: the part of the Web Storage API they use (`localStorage` fits). */
export interface HintStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/**
 * What is known of a key: `{ validator }` for a copy kept with that validator, `{ validator:
 * undefined }` for no copy (the namespace has nothing kept in this browser, or a hint written by
 * an earlier version says none is), `undefined` for nothing known (wait for the store).
 */
export type HintGuess = { readonly validator: HttpValidator | undefined } | undefined

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

/** Whether a validator's value can be sent as a header field and kept in an envelope: 1 to MAX_VALIDATOR_LENGTH (255) printable ASCII characters, as the codec's `withValidator` takes them. */
export function sendable(value: string): boolean {
  return value.length >= 1 && value.length <= MAX_VALIDATOR_LENGTH && /^[\x20-\x7e]+$/.test(value)
}

function encodeHint(validator: HttpValidator | undefined): string {
  if (validator === undefined) return NO_COPY
  return (validator.kind === 'etag' ? 'e' : 'm') + validator.value
}

function decodeHint(text: unknown): HintGuess {
  if (text === NO_COPY) return { validator: undefined }
  if (typeof text !== 'string') return undefined
  const kind = text[0] === 'e' ? 'etag' : text[0] === 'm' ? 'last-modified' : undefined
  const value = text.slice(1)
  // Anything else (damaged, or written by something else) is nothing known.
  return kind === undefined || !sendable(value) ? undefined : { validator: { kind, value } }
}

// The hint of an entry: its namespace (which never holds a NUL) and key.
function hintId(namespace: string, key: string): string {
  return `${namespace}\u0000${key}`
}

/** The storage an option names: `false` none, `undefined` the default ({@link defaultHintStorage}). */
export function hintStorage(option: HintStorage | false | undefined): HintStorage | undefined {
  return option === false ? undefined : (option ?? defaultHintStorage())
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

// The item as last read or written, per storage: its text and what it holds. A page that calls
// fetchCached often then parses it only when it changed (up to 64 KiB), not on every call.
const lastRead = new WeakMap<HintStorage, { readonly text: string | null; readonly hints: ReadonlyMap<string, unknown> }>()

// What an item's text holds: its entries in their order (the least recently changed first).
function parse(text: string | null): ReadonlyMap<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text ?? '{}')
    // Own keys only, in a Map: a key named __proto__ stays a key.
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return new Map(Object.entries(parsed))
  } catch {
    // Nothing known.
  }
  return new Map()
}

/**
 * The hints in `storage`. Every failure of the storage (blocked, full, damaged JSON) leaves nothing
 * known: the caller then waits for its store.
 */
export class ValidatorHints {
  constructor(private readonly storage: HintStorage) {}

  /** What is known of `key` of `namespace` (see {@link HintGuess}). */
  guess(namespace: string, key: string): HintGuess {
    if (key.length > MAX_HINTED_KEY) return undefined
    const hints = this.load()
    const known = decodeHint(hints.get(hintId(namespace, key)))
    if (known !== undefined) return known
    // A namespace with no copy kept in this browser: none to find.
    return hints.has(NAMESPACE_MARK + namespace) ? undefined : { validator: undefined }
  }

  /** Remembers the validator the kept copy of `key` has (`undefined`: no copy is kept). */
  remember(namespace: string, key: string, validator: HttpValidator | undefined): void {
    if (key.length > MAX_HINTED_KEY || (validator !== undefined && !sendable(validator.value))) return
    const loaded = this.load()
    const id = hintId(namespace, key)
    const mark = NAMESPACE_MARK + namespace
    const after = encodeHint(validator)
    if (loaded.get(id) === after && loaded.has(mark)) return
    const hints = new Map(loaded)
    hints.delete(id)
    hints.set(id, after)
    hints.set(mark, 1)
    this.save(hints)
  }

  /** Forgets what is known of `key` of `namespace`: the next call waits for its store. */
  forget(namespace: string, key: string): void {
    const loaded = this.load()
    const id = hintId(namespace, key)
    if (!loaded.has(id)) return
    const hints = new Map(loaded)
    hints.delete(id)
    this.save(hints)
  }

  /** Forgets what is known of `namespace` and of its child namespaces (a sign-out wiped them). */
  forgetNamespace(namespace: string): void {
    const within = (ns: string) => ns === namespace || ns.startsWith(`${namespace}:`)
    const hints = new Map(this.load())
    let changed = false
    for (const id of [...hints.keys()]) {
      if (!within(id.startsWith(NAMESPACE_MARK) ? id.slice(1) : id.slice(0, id.indexOf('\u0000')))) continue
      hints.delete(id)
      changed = true
    }
    if (changed) this.save(hints)
  }

  private load(): ReadonlyMap<string, unknown> {
    let text: string | null
    try {
      text = this.storage.getItem(HINTS_ITEM)
    } catch {
      return new Map()
    }
    const last = lastRead.get(this.storage)
    if (last !== undefined && last.text === text) return last.hints
    const hints = parse(text)
    lastRead.set(this.storage, { text, hints })
    return hints
  }

  // Writes the hints back, the least recently changed left out past MAX_HINTS or MAX_HINTS_LENGTH
  // (namespace marks stay: forgetting one would send a first request without a validator).
  private save(hints: Map<string, unknown>): void {
    const ids = [...hints.keys()].filter((id) => !id.startsWith(NAMESPACE_MARK))
    let i = 0
    for (; i < ids.length - MAX_HINTS; i++) hints.delete(ids[i] as string)
    let text = JSON.stringify(Object.fromEntries(hints))
    // Too long: the oldest go, an eighth of those left at a time, until it fits.
    while (text.length > MAX_HINTS_LENGTH && i < ids.length) {
      const end = Math.min(ids.length, i + Math.max(1, Math.ceil((ids.length - i) / 8)))
      for (; i < end; i++) hints.delete(ids[i] as string)
      text = JSON.stringify(Object.fromEntries(hints))
    }
    try {
      this.storage.setItem(HINTS_ITEM, text)
      lastRead.set(this.storage, { text, hints })
    } catch {
      // Full or blocked: what this call learnt is not kept; later calls wait for their store where
      // the namespace is known, and for a namespace that is not, ask without a validator.
    }
  }
}
