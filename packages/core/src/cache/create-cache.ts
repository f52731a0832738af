// createCache: settles the options once into what every namespace of the cache shares, and
// subscribes to the invalidation channel. The façade is cache.ts; what it shares, shared.ts.
import type { Cache } from './cache-api.js'
import { StowageCache } from './cache.js'
import type { Shared } from './shared.js'
import { DEFAULT_NAMESPACE, type CacheOptions, type CacheSchema } from './cache-types.js'
import type { Codec } from '../codec/codec.js'
import type { CodecOptions } from '../codec/options.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import { createMemoryStore } from '../stores/memory-store.js'
import type { Store } from '../stores/store.js'
import { checkTtl } from '../stores/validate.js'
import { checkOptionNames } from '../errors/option-names.js'
import { CircuitBreaker } from './breaker.js'
import { Changes } from './changes.js'
import { Claims } from './claims.js'
import { DictionaryBook } from './dictionary-book.js'
import { DictionaryTrainer, type Train } from './dictionary-trainer.js'
import { decodeInvalidation, INVALIDATION_CODEC_OPTIONS } from './invalidation.js'
import { checkNamespace } from './keys.js'
import { DEFAULT_LEASE_TIME, type LoadLease } from './lease.js'
import { LocalTier } from './local-tier.js'
import { RecentWrites } from './recent-writes.js'
import { compileSchemas } from './schemas.js'
import { SingleFlight } from './single-flight.js'
import { TagBook } from './tags.js'
import { announce } from './writes.js'

// Whether a store is remote (Redis, IndexedDB): the in-process tier and the breaker are on by
// default in front of those, off in front of the memory store, which already lives in this process.
function isRemote(store: Store | undefined): boolean {
  return store !== undefined && store.name !== 'memory'
}

function localTier(option: CacheOptions['local'], store: Store | undefined): LocalTier | undefined {
  if (option === false || (option === undefined && !isRemote(store))) return undefined
  if (option === true || option === undefined) return new LocalTier({})
  // LocalTier refuses anything but an options object; a Store (what `local` once took) gets its own word.
  if (typeof (option as Partial<Store> | null)?.get === 'function') {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'local is true, false or { maxEntries, maxBytes, ttl, freeze }: the local tier keeps decoded values itself, not in a Store')
  }
  return new LocalTier(option)
}

// The names of CacheOptions: anything else given to createCache is a misspelling (checkOptionNames).
const CACHE_OPTION_NAMES = ['store', 'namespace', 'ttl', 'codec', 'autoDictionary', 'version', 'migrate', 'schemas', 'readErrors', 'writeErrors', 'local', 'breaker', 'lease', 'leaseTime', 'invalidation', 'measureJson'] as const satisfies ReadonlyArray<keyof CacheOptions>

function circuitBreaker(option: CacheOptions['breaker'], store: Store | undefined): CircuitBreaker | undefined {
  if (option === false || (option === undefined && !isRemote(store))) return undefined
  return new CircuitBreaker(option === true || option === undefined ? {} : option)
}

/**
 * Creates a cache; see {@link CacheOptions}. Exported bound to a platform by the entry: its codecs,
 * and `handOut` for the bytes `getBytes` returns (see Platform.handOut).
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createCacheWith<S extends CacheSchema>(
  createCodec: (options?: CodecOptions) => Codec,
  options: CacheOptions = {},
  train?: Train,
  handOut: (bytes: Uint8Array) => Uint8Array = (bytes) => bytes,
): Cache<S> {
  if (typeof (options as Partial<Store>).get === 'function' && typeof (options as Partial<Store>).set === 'function') {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'createCache takes an options object: pass the store as createCache({ store })')
  }
  checkOptionNames('createCache', options, CACHE_OPTION_NAMES)
  const namespace = options.namespace ?? DEFAULT_NAMESPACE
  checkNamespace(namespace)
  checkTtl(options.ttl)
  const version = options.version ?? 0
  if (!(Number.isInteger(version) && version >= 0 && version <= 0xffffffff)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `version must be an integer from 0 to ${0xffffffff}`)
  }
  if (options.migrate !== undefined && typeof options.migrate !== 'function') {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'migrate must be a function')
  }
  if (options.lease !== undefined && typeof (options.lease as Partial<LoadLease> | null)?.acquire !== 'function') {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'lease must have an acquire(key, ms) function (see createRedisLease)')
  }
  checkTtl(options.leaseTime, 'leaseTime')
  const readErrors = options.readErrors ?? 'miss'
  const writeErrors = options.writeErrors ?? 'throw'
  if ((readErrors !== 'miss' && readErrors !== 'throw') || (writeErrors !== 'throw' && writeErrors !== 'ignore')) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, "readErrors is 'miss' or 'throw'; writeErrors is 'throw' or 'ignore'")
  }
  const store = options.store ?? createMemoryStore()
  const codec = options.codec
  const breaker = circuitBreaker(options.breaker, options.store)
  const breakable = breaker ? breaker.guard(store) : store
  const settled = codec !== undefined && typeof (codec as Codec).decodeEnvelopeAsync === 'function' ? (codec as Codec) : createCodec(codec as CodecOptions | undefined)
  // Dictionaries the codec lacks are loaded from the store; its own are stored before the first write.
  const dictionaries = new DictionaryBook(breakable, settled, createCodec)
  const guarded = dictionaries.guard(breakable)
  const messages = createCodec(INVALIDATION_CODEC_OPTIONS)
  const auto = options.autoDictionary
  if (auto !== undefined && typeof auto !== 'boolean' && (typeof auto !== 'object' || auto === null)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'autoDictionary is true, false or an object of options')
  const trainer = auto === undefined || auto === false || train === undefined ? undefined : new DictionaryTrainer(guarded, store, namespace, dictionaries, createCodec, train, auto === true ? {} : auto)
  const local = localTier(options.local, options.store)
  // The book only serves the local tier's hits: without one it keeps nothing.
  const tags = new TagBook(local?.maxTags ?? 0)
  const claims = new Claims()
  const flight = new SingleFlight()
  const shared: Shared = {
    store: guarded,
    given: store,
    breaker,
    ownsStore: options.store === undefined,
    codec: settled,
    ttl: options.ttl,
    version,
    opener: { codec: settled, version, migrate: options.migrate, schemaFor: compileSchemas(options.schemas), store: guarded, messages, tags, dictionaries },
    lease: options.lease,
    leaseTime: options.leaseTime ?? DEFAULT_LEASE_TIME,
    readErrors,
    writeErrors,
    measureJson: options.measureJson === true,
    local,
    tags,
    channel: options.invalidation,
    recent: options.invalidation ? new RecentWrites() : undefined,
    claims,
    flight,
    changes: new Changes(claims, flight, local),
    origin: Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join(''),
    messages,
    trainer,
    handOut,
    unsubscribe: undefined,
  }
  const { channel } = shared
  // A clear elsewhere began at `since`: what this process wrote under `prefix` since then may have
  // landed after it, and is deleted once it has (see RecentWrites); the others drop their copies.
  const forgetSince = (recent: RecentWrites, prefix: string, since: number) => {
    const { keys, landed } = recent.since(prefix, since)
    if (keys.length === 0) return
    void landed
      .then(() => {
        // As a delete here: what is read or loaded from now on never lands after it (see Changes).
        shared.changes.starting(keys)
        return Promise.all(keys.map((full) => shared.store.delete(full)))
      })
      .then(() => {
        shared.changes.landed('delete', keys.map((full) => ({ full })))
        announce(shared, 'delete', keys, undefined, () => {})
      })
      .catch(() => {}) // a store that fails here fails the next read too, which reports it
  }
  // Every key of this cache (its children's too) starts with this.
  const root = `${namespace}:`
  if (channel) {
    shared.unsubscribe = channel.subscribe(
      (bytes) => {
        const message = decodeInvalidation(shared.messages, bytes)
        if (message === undefined || message.origin === shared.origin) return
        for (const key of message.keys) {
          // Another process changed the key: a read, load or receipt begun here before it must not
          // land after it (see Claims), nor may later callers join a load that began before it.
          if (message.op === 'clear') {
            // A clear of another application's namespace (channels may be shared) touches nothing here.
            if (!key.startsWith(root) && !root.startsWith(key)) continue
            claims.supersedeAll(key)
            flight.forgetAll(key)
            local?.clear(key)
            if (message.since !== undefined && shared.recent) forgetSince(shared.recent, key, message.since)
          } else if (message.op === 'tag') {
            if (local) tags.invalidate(key)
            // Later callers load afresh rather than join a load begun before it (as this process's
            // own deleteByTag does): the tag key's namespace ends where its `#tag:` begins.
            const at = key.indexOf('#tag:')
            if (at >= 0) flight.forgetAll(key.slice(0, at))
          } else {
            claims.supersede(key)
            flight.forget(key)
            local?.delete(key)
          }
        }
      },
      // Messages were lost (a subscriber reconnected): no local copy can be trusted any more.
      () => {
        claims.supersedeAll('')
        flight.forgetAll('')
        local?.clear('')
        tags.forget()
      },
    )
  }
  return new StowageCache<S>(shared, namespace)
}
