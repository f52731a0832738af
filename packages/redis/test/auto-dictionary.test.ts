import { createCache, dictionaryKey, dictionaryPointerKey, inspect } from '@stowage/core'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createRedisStore } from '../src/index.js'

// Two processes (two clients, two caches) that train a dictionary for one namespace at the same
// time converge on one: the pointer is set where none is, atomically (the store's ensureMany).
const url = inject('redisUrl')
let one: Redis
let two: Redis
beforeAll(() => {
  one = new Redis(url)
  two = new Redis(url)
})
afterAll(async () => {
  await one.quit()
  await two.quit()
})

const user = (i: number) => ({ login: `user${i}`, id: 1000 + i, url: `https://api.github.com/users/user${i}`, html_url: `https://github.com/user${i}`, type: 'User', site_admin: false })

describe('autoDictionary over Redis', () => {
  it('two caches reaching their samples at once train one dictionary between them, which a third that never trained reads with', async () => {
    const ns = `auto-${Math.random().toString(36).slice(2)}`
    const a = createCache({ store: createRedisStore({ client: one }), namespace: ns, autoDictionary: { samples: 20 }, local: false })
    const b = createCache({ store: createRedisStore({ client: two }), namespace: ns, autoDictionary: { samples: 20 }, local: false })
    const ids = new Set<number>()
    // The loser's dictionary is stored too (before the pointer is proposed): found by difference.
    const before = new Set(await one.keys('#dict:*'))
    try {
      let i = 0
      let named = 0
      while (named < 2 && i < 500) {
        await Promise.all([a.set(`a${i}`, user(i)), b.set(`b${i}`, user(i + 5000))])
        const [da, db] = await Promise.all([one.getBuffer(`${ns}:a${i}`), one.getBuffer(`${ns}:b${i}`)])
        named = [da, db].filter((bytes) => inspect(bytes!).dictionaryId !== undefined).length
        i++
      }
      // Every value written with a dictionary names the same one.
      for (const key of await one.keys(`${ns}:*`)) {
        const id = inspect((await one.getBuffer(key))!).dictionaryId
        if (id !== undefined) ids.add(id)
      }
      expect(ids.size).toBe(1)
      // And only one was trained: the other process waited for the claim's holder.
      expect((await one.keys('#dict:*')).filter((k) => !before.has(k))).toHaveLength(1)
      const reader = createCache({ store: createRedisStore({ client: one }), namespace: ns, local: false })
      expect(await reader.get(`b${i - 1}`)).toStrictEqual(user(i - 1 + 5000))
    } finally {
      const stored = (await one.keys('#dict:*')).filter((k) => !before.has(k))
      await one.del(...(await one.keys(`${ns}:*`)), dictionaryPointerKey(ns), ...[...ids].map(dictionaryKey), ...stored, ...(await one.keys(`#dict-training:${ns}:*`)))
    }
  })
})
