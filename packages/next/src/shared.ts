// What both handlers share: one Cache over the store (so tags revalidated by either reach both),
// its tag book, and how a swallowed failure is reported.
import { checkOptionNames, createCache, StowageError, StowageErrorCode, type Cache } from '@stowage/core'
import { DEFAULT_NEXT_NAMESPACE, type NextCacheOptions } from './options.js'
import { TagBook } from './tag-book.js'

/** One namespace's cache and tag book, shared by the handlers made from one options object. */
export interface NextCacheCore {
  readonly cache: Cache
  readonly tags: TagBook
  readonly ttl: number | undefined
  report(error: unknown): void
}

const cores = new WeakMap<NextCacheOptions, NextCacheCore>()

/**
 * The core for `options`, made once per options object.
 * @throws {StowageError} INVALID_ARGUMENT for a missing store or a bad option.
 */
export function coreFor(options: NextCacheOptions): NextCacheCore {
  const found = cores.get(options)
  if (found) return found
  checkOptionNames('Next.js handler', options, ['store', 'namespace', 'ttl', 'codec', 'onError'] satisfies ReadonlyArray<keyof NextCacheOptions>)
  const store = options?.store
  if (typeof store?.name !== 'string' || typeof store.get !== 'function' || typeof store.set !== 'function') {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'the Next.js handlers need a Stowage Store as their store option (createRedisStore)')
  }
  if (options.ttl !== undefined && !(typeof options.ttl === 'number' && options.ttl > 0 && Number.isFinite(options.ttl))) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `ttl must be a positive number of ms, got ${String(options.ttl)}`)
  }
  // No in-process tier: Next keeps its own, and every instance must see a revalidation at once.
  // Reads that fail are misses (Next renders); writes reject, and the handlers report and swallow them.
  const cache = createCache({ store, namespace: options.namespace ?? DEFAULT_NEXT_NAMESPACE, codec: options.codec, local: false, readErrors: 'miss', writeErrors: 'throw' })
  const onError = options.onError ?? ((error: StowageError) => console.warn(`[@stowage/next] ${error.code}: ${error.message}`))
  const report = (error: unknown) => {
    try {
      onError(StowageError.isInstance(error) ? error : new StowageError(StowageErrorCode.STORE_ERROR, String((error as Error)?.message ?? error), { cause: error }))
    } catch {
      // A listener's failure must not turn a cache failure into a page error.
    }
  }
  cache.on('error', (event) => report(event.error))
  const core: NextCacheCore = { cache, tags: new TagBook(cache), ttl: options.ttl, report }
  cores.set(options, core)
  return core
}
