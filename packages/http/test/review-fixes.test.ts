// Found by a review of e878247 and 779eccc: a refused 304 leaves a newer write alone, Age is read as RFC 9111 §5.1 says, and serveDictionary without options is INVALID_ARGUMENT.
import { createCache, createMemoryStore, dictionaryId, storeDictionary, StowageError, StowageErrorCode, trainDictionary } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { fetchCachedWithInfo, serveDictionary } from '../src/index.js'
import { keepDecision } from '../src/fetch-policy.js'
import { notModified, ok } from './scripted-fetch.js'

const url = 'https://api.example/api/me'
const unscopedRequest = { headers: new Headers(), crossOrigin: false, scoped: false }

describe('304 that refuses the copy (e878247)', () => {
  it('does not delete a newer value written to the key while the request was out (the claim was superseded)', async () => {
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let calls = 0
    const fetch = (async () => {
      calls++
      if (calls === 1) return ok({ v: 1 })()
      await gate
      return notModified({ 'Cache-Control': 'no-store' })()
    }) as typeof globalThis.fetch
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    const pending = fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    await new Promise((resolve) => setTimeout(resolve, 20))
    // The app writes a newer value while the revalidation is out: the 304 speaks for the old copy only.
    await cache.set(url, { v: 'newer' })
    release()
    expect((await pending).kept).toBe(false)
    expect(await cache.get(url)).toStrictEqual({ v: 'newer' })
  })

})

describe('Age parsing (RFC 9111 §5.1, §1.2.2)', () => {
  it('a list-based Age uses its first member', () => {
    const headers = new Headers([['Cache-Control', 'max-age=60, stale-if-error=60'], ['Age', '100'], ['Age', '100']])
    expect(headers.get('Age')).toBe('100, 100')
    expect(keepDecision(unscopedRequest, { headers })).toStrictEqual({ keep: true, ttl: 20_000, by: 'response' })
  })

  it('delta-seconds past what can be represented count as 2^31: never a NaN ttl', () => {
    const huge = '9'.repeat(400)
    const decision = keepDecision(unscopedRequest, { headers: new Headers({ 'Cache-Control': `max-age=${huge}, stale-if-error=60`, Age: huge }) })
    expect(decision.keep === false || Number.isFinite(decision.ttl)).toBe(true)
  })
})

describe('serveDictionary shared (779eccc)', () => {
  it('a JavaScript caller that gives no options gets INVALID_ARGUMENT, as documented', async () => {
    const error = await (serveDictionary as (r: unknown, o?: unknown) => Promise<Response>)({ method: 'GET', headers: new Headers() }).catch((e: unknown) => e)
    expect(StowageError.isInstance(error) && error.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
  })
})
