// The options of one write and of one getOrSet, checked and settled once: what a load and a write go by.
import type { CacheSetOptions, GetOrSetOptions } from './cache-types.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { StoreFence } from '../stores/store.js'
import { checkTtl } from '../stores/validate.js'
import { checkOptionNames } from '../errors/option-names.js'
import { checkTags } from './tags.js'

/** How one write stores its value, settled from the call's options. */
export interface WriteSettings {
  readonly ttl: number | undefined
  readonly staleFor?: number
  readonly grace?: number
  /** The entry's tags, checked. */
  readonly tags?: readonly string[]
  /** The lease the value was loaded under: the store refuses the write once it is lost. */
  readonly fence?: StoreFence
}

/** How long the store keeps an entry written with `settings`: its ttl plus its stale and grace windows (undefined: for ever). */
export function storeTtl({ ttl, staleFor, grace }: WriteSettings): number | undefined {
  return ttl === undefined ? undefined : ttl + (staleFor ?? 0) + (grace ?? 0)
}

/** How one getOrSet loads and stores. */
export interface LoadSettings extends WriteSettings {
  readonly softTimeout?: number
  readonly hardTimeout?: number
}

/** The names of CacheSetOptions (`set`, a bundle's `set`): anything else is a misspelling (checkOptionNames). */
export const SET_OPTION_NAMES = ['ttl', 'tags'] as const satisfies ReadonlyArray<keyof CacheSetOptions>
// The names of GetOrSetOptions.
const GET_OR_SET_OPTION_NAMES = [...SET_OPTION_NAMES, 'staleFor', 'grace', 'softTimeout', 'hardTimeout'] as const satisfies ReadonlyArray<keyof GetOrSetOptions>

/** @throws {StowageError} INVALID_ARGUMENT for a bad duration, or a stale or grace period without a ttl. */
export function loadSettings(options: GetOrSetOptions | undefined, defaultTtl: number | undefined): LoadSettings {
  if (options !== undefined) checkOptionNames('getOrSet', options, GET_OR_SET_OPTION_NAMES)
  const ttl = options?.ttl ?? defaultTtl
  const { staleFor, grace, softTimeout, hardTimeout } = options ?? {}
  const tags = options?.tags === undefined ? undefined : checkTags(options.tags)
  checkTtl(ttl)
  checkTtl(staleFor, 'staleFor')
  checkTtl(grace, 'grace')
  checkTtl(softTimeout, 'softTimeout')
  checkTtl(hardTimeout, 'hardTimeout')
  if ((staleFor !== undefined || grace !== undefined) && ttl === undefined) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'staleFor and grace need a ttl: there is no stale without fresh')
  }
  return { ttl, staleFor, grace, softTimeout, hardTimeout, tags }
}
