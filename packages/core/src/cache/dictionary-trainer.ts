// A dictionary a cache trains for itself (issue 19, `autoDictionary`): it samples the small values
// it writes, trains a preset dictionary once it has enough, stores it beside the values, and from
// then on writes with it. Several processes converge on one dictionary per namespace: the store key
// `#dict-for:<namespace>` names the dictionary the namespace writes with, set only where it has
// none (the store's `ensureMany`, atomic; else read, then set), and each process adopts whatever it
// names, so a late trainer drops its own dictionary for the first one stored. Where the store has
// ensureMany (Redis), only one process trains per round: the one that sets the round's claim key
// `#dict-training:<namespace>:<current id>` (it lives a minute); the others wait for its pointer.
// When the values drift
// (what writes compress to grows past the ratio measured at training), a new round of samples
// trains a new dictionary, which replaces the pointer; older dictionaries stay in the store, so
// every entry written with them stays readable.
import type { Codec, EncodedEnvelope } from '../codec/codec.js'
import { MAX_DICTIONARY_SIZE } from '../codec/options.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Store } from '../stores/store.js'
import { checkOptionNames } from '../errors/option-names.js'
import { DICTIONARY_CODEC_OPTIONS, type DictionaryBook } from './dictionary-book.js'

/** Options of automatic dictionaries (`CacheOptions.autoDictionary`). Every field is optional. */
export interface AutoDictionaryOptions {
  /** Values sampled before a dictionary is trained. Defaults to {@link DEFAULT_AUTO_SAMPLES}. */
  readonly samples?: number
  /** The dictionary's size in bytes, 256 to 32,768. Defaults to {@link DEFAULT_AUTO_SIZE}. */
  readonly size?: number
  /** Values whose MessagePack is longer are not sampled (a dictionary pays on small values). Defaults to 16,384. */
  readonly maxSampleBytes?: number
  /** Writes between two checks of how well the dictionary still compresses. Defaults to 1,000. */
  readonly checkEvery?: number
}

/**
 * Default of {@link AutoDictionaryOptions.samples}: on small real values (emojibase rows, countries,
 * GitHub users and issues), dictionaries trained on 50 to 400 values compressed held-out values
 * within 3% of one another (apps/bench/RESULTS.md, "Dictionaries a cache trains").
 */
export const DEFAULT_AUTO_SAMPLES = 100
/** Default of {@link AutoDictionaryOptions.size}: 4 KiB gave most of 16 KiB's gain on values under 2 kB, at a quarter of the encode cost. */
export const DEFAULT_AUTO_SIZE = 4096
/** A new dictionary is trained when writes compress this much worse than at training. */
const DRIFT = 1.25
/** How long a process's claim to train for a namespace holds the others off, in ms. */
const CLAIM_MS = 60_000
/** Writes between two looks for the dictionary another process is training. */
const WAIT_CHECK = 50
/** Writes with a new dictionary measured for the baseline ratio that later windows are held to. */
const BASELINE_WRITES = 100

/** Trains a dictionary of `size` bytes on `values` (the platform's trainDictionary). */
export type Train = (values: readonly unknown[], size: number) => Uint8Array

// The proposals under way per store, for stores without an atomic ensureMany.
const proposing = new WeakMap<Store, Promise<unknown>>()

/** The store key that names the dictionary a namespace writes with. */
export const dictionaryPointerKey = (namespace: string): string => `#dict-for:${namespace}`

function positive(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < min || value > max) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `autoDictionary.${name} must be an integer from ${min} to ${max}, not ${String(value)}`)
  return value
}

/** Trains, shares and adopts the dictionary of one cache (its namespace and those under it). */
export class DictionaryTrainer {
  private readonly samples: number
  private readonly size: number
  private readonly maxSampleBytes: number
  private readonly checkEvery: number
  private taken: Uint8Array[] = []
  // 'resting': the values sampled were too small for any dictionary; after checkEvery writes this
  // cache looks for a dictionary stored meanwhile, then samples again.
  private state: 'looking' | 'sampling' | 'training' | 'waiting' | 'writing' | 'resting' = 'looking'
  private rested = 0
  // Whether values too small to learn from were told (once per cache, not per round).
  private toldSmall = false
  // While waiting for another process's dictionary: since when, and writes seen.
  private waitingSince = 0
  private waited = 0
  private baseline: number | undefined
  private window = { stored: 0, payload: 0, writes: 0 }
  private readonly envelopes: Codec

  /**
   * @param store - where values, dictionaries and the pointer live.
   * @param given - that store as the caller gave it (every cache over it takes turns with the others).
   * @param namespace - the cache's namespace: one dictionary per namespace.
   * @param book - decodes the samples, and adopts the dictionary.
   * @param make - makes a codec from options.
   * @param trainOn - trains a dictionary.
   * @param options - see {@link AutoDictionaryOptions}.
   * @throws {StowageError} INVALID_ARGUMENT for a bad option.
   */
  constructor(
    private readonly store: Store,
    private readonly given: Store,
    private readonly namespace: string,
    private readonly book: DictionaryBook,
    make: (options: typeof DICTIONARY_CODEC_OPTIONS) => Codec,
    private readonly trainOn: Train,
    options: AutoDictionaryOptions,
  ) {
    checkOptionNames('autoDictionary', options, ['samples', 'size', 'maxSampleBytes', 'checkEvery'] satisfies ReadonlyArray<keyof AutoDictionaryOptions>)
    this.samples = positive('samples', options.samples, DEFAULT_AUTO_SAMPLES, 5, 100_000)
    this.size = positive('size', options.size, DEFAULT_AUTO_SIZE, 256, MAX_DICTIONARY_SIZE)
    this.maxSampleBytes = positive('maxSampleBytes', options.maxSampleBytes, 16_384, 1, 1 << 30)
    this.checkEvery = positive('checkEvery', options.checkEvery, 1_000, 10, 1 << 30)
    this.envelopes = make(DICTIONARY_CODEC_OPTIONS)
    // Another process may have trained one already: adopted before any sampling.
    this.run(async () => {
      await this.adoptStored(true)
    })
  }

  /**
   * Learns from one written value: a sample while sampling, a measure of the dictionary once writing with it.
   * @param failed - told of a failure to train, store or adopt a dictionary (the writing cache's error event); writes go on meanwhile.
   */
  offer(encoded: EncodedEnvelope, failed: (error: unknown) => void): void {
    this.failed = failed
    if (this.failure !== undefined) {
      failed(this.failure)
      this.failure = undefined
    }
    if (this.state === 'resting') {
      if (++this.rested >= this.checkEvery) {
        this.state = 'looking'
        this.run(async () => {
          await this.adoptStored(true)
        })
      }
      return
    }
    if (encoded.payloadLength > this.maxSampleBytes) return
    if (this.state === 'sampling') {
      this.taken.push(encoded.bytes)
      if (this.taken.length >= this.samples) this.run(() => this.train())
      return
    }
    if (this.state === 'waiting') {
      // Another process trains: its pointer is looked for every WAIT_CHECK writes; past the claim's
      // life (it may have died), this process samples again.
      if (++this.waited % WAIT_CHECK === 0) this.run(() => this.lookAgain())
      return
    }
    if (this.state !== 'writing') return
    const w = this.window
    w.stored += encoded.bytes.length
    w.payload += encoded.payloadLength
    w.writes++
    if (w.writes < (this.baseline === undefined ? BASELINE_WRITES : this.checkEvery)) return
    const ratio = w.stored / Math.max(1, w.payload)
    this.window = { stored: 0, payload: 0, writes: 0 }
    if (this.baseline === undefined) this.baseline = ratio
    else if (ratio > this.baseline * DRIFT) {
      // The values changed: a new round of samples, then a new dictionary.
      this.state = 'sampling'
      this.taken = []
    }
  }

  /** Resolves when no training or lookup is under way (for tests and shutdown). */
  settled(): Promise<void> {
    return this.pending
  }

  private pending: Promise<void> = Promise.resolve()
  private failed: ((error: unknown) => void) | undefined
  // A failure before any write could be told: told at the next.
  private failure: unknown

  private run(step: () => Promise<void>): void {
    this.pending = this.pending.then(step).catch((e: unknown) => {
      if (this.state === 'training' || this.state === 'looking') this.state = 'sampling'
      this.taken = []
      if (this.failed === undefined) this.failure = e
      else this.failed(e)
    })
  }

  // Adopts the dictionary the pointer names, if any; else (on the first look) starts sampling.
  private async adoptStored(first: boolean): Promise<boolean> {
    const pointer = await this.store.get(dictionaryPointerKey(this.namespace))
    if (pointer === undefined) {
      if (first) this.state = 'sampling'
      return false
    }
    const id = this.envelopes.decode<unknown>(pointer)
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new StowageError(StowageErrorCode.CORRUPT, `the store's ${dictionaryPointerKey(this.namespace)} names no dictionary`)
    const measured = await this.book.adopt(id)
    if (!measured) throw new StowageError(StowageErrorCode.CORRUPT, `the store lacks the dictionary ${dictionaryPointerKey(this.namespace)} names (${id.toString(16).padStart(8, '0')})`)
    this.startWriting()
    return true
  }

  // Adopts the pointer's dictionary when it is not the one written with; after the claim's life, samples again.
  private async lookAgain(): Promise<void> {
    if (this.state !== 'waiting') return
    const pointer = await this.store.get(dictionaryPointerKey(this.namespace))
    const id = pointer === undefined ? undefined : this.envelopes.decode<unknown>(pointer)
    const current = this.book.writingId
    if (typeof id === 'number' && id !== current) {
      await this.adoptStored(false)
      return
    }
    if (Date.now() - this.waitingSince > CLAIM_MS) {
      this.state = 'sampling'
      this.taken = []
    }
  }

  // One process trains per namespace and round: the first to set the round's claim key (where the
  // store has an atomic ensureMany; elsewhere every process trains, and the pointer still converges).
  private async claimed(): Promise<boolean> {
    if (!this.store.ensureMany) return true
    const current = this.book.writingId === undefined ? 'none' : this.book.writingId.toString(16).padStart(8, '0')
    const token = crypto.getRandomValues(new Uint32Array(1))[0] as number
    const [held] = await this.store.ensureMany([{ key: `#dict-training:${this.namespace}:${current}`, value: this.envelopes.encode(token), ttl: CLAIM_MS }])
    if (held !== undefined && this.envelopes.decode<unknown>(held) === token) return true
    this.state = 'waiting'
    this.waitingSince = Date.now()
    this.waited = 0
    return false
  }

  private async train(): Promise<void> {
    this.state = 'training'
    const taken = this.taken
    this.taken = []
    if (!(await this.claimed())) return
    const values = taken.map((bytes) => this.book.codec.decode(bytes))
    let dictionary: Uint8Array
    try {
      dictionary = this.trainOn(values, this.size)
    } catch (e) {
      if (!StowageError.isInstance(e) || e.code !== StowageErrorCode.INVALID_ARGUMENT) throw e
      // Nothing to learn from (values of a few bytes): told once; sampled again after checkEvery writes.
      this.state = 'resting'
      this.rested = 0
      if (this.toldSmall) return
      this.toldSmall = true
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `autoDictionary (${this.namespace}) trains no dictionary yet: ${e.message}`, { cause: e })
    }
    const id = await this.book.store(dictionary)
    const pointer = this.envelopes.encode(id)
    const key = dictionaryPointerKey(this.namespace)
    const replacing = this.book.writingId !== undefined
    const propose = async () => {
      if (replacing) await this.store.set(key, pointer)
      else if (this.store.ensureMany) await this.store.ensureMany([{ key, value: pointer }])
      else if ((await this.store.get(key)) === undefined) await this.store.set(key, pointer)
      // Whatever the pointer names now is the namespace's dictionary: this one, or one stored first.
      return this.adoptStored(false)
    }
    // Without ensureMany a read then a write is no atomic step: caches of this process over one
    // store take turns, so that they converge (across processes, the last pointer written wins at
    // their next training).
    const turn = (proposing.get(this.given) ?? Promise.resolve()).then(propose, propose)
    proposing.set(this.given, turn.catch(() => undefined))
    if (!(await turn)) throw new StowageError(StowageErrorCode.STORE_ERROR, `the store did not keep ${key}`)
  }

  private startWriting(): void {
    this.state = 'writing'
    this.window = { stored: 0, payload: 0, writes: 0 }
    this.baseline = undefined
  }
}
