// Keyv's own adapter suite (@keyv/test-suite 2, for Keyv 5), in full: the API, value and
// namespace tests plus the iterator tests, over the memory store and over Redis, with Keyv's
// serialization on (its default) and off (withoutKeyvSerialization).
import keyvTestSuite, { keyvIteratorTests } from '@keyv/test-suite'
import { createMemoryStore, type Store } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import Keyv, { type KeyvOptions } from 'keyv'
import * as test from 'vitest'
import { createKeyvStore, withoutKeyvSerialization } from '../src/index.js'

// With Keyv's serialization off, bytes are Stowage's: a Node Buffer comes back as a Uint8Array of
// the same bytes (keyv.test.ts checks that), where Keyv's JSON path rebuilds a Buffer. The one
// suite test that asks for a Buffer is run as a test that must fail, so the difference stays known.
const BUFFER_TEST = 'value can be an object containing a buffer'
const expectingUint8Array: typeof test = {
  ...test,
  it: Object.assign((name: string, fn: test.TestFunction) => (name === BUFFER_TEST ? test.it.fails(`${name}: fails as documented, a Buffer comes back as a Uint8Array`, fn) : test.it(name, fn)), test.it),
} as typeof test

// Keyv with its serialization off unless a test brings its own serializer (the BigInt test does).
class UnserializedKeyv extends Keyv {
  constructor(options?: KeyvOptions) {
    super(options)
    if (options?.serialize === undefined) withoutKeyvSerialization(this)
  }
}

const stores: Array<{ name: string; open: () => Store }> = [
  { name: 'memory store', open: () => createMemoryStore() },
  { name: 'redis store', open: () => createRedisStore({ url: test.inject('redisUrl') }) },
]

for (const { name, open } of stores) {
  for (const [mode, K, suiteTest] of [
    ['Keyv serialization on', Keyv, test],
    ['Keyv serialization off', UnserializedKeyv, expectingUint8Array],
  ] as const) {
    test.describe(`@keyv/test-suite over the ${name}, ${mode}`, () => {
      // One store per block, one key prefix per block: the suite clears its namespaces itself.
      const store = open()
      const prefix = `keyv-suite-${Math.random().toString(36).slice(2)}:`
      const adapter = () => createKeyvStore(store, { prefix })
      test.afterAll(async () => {
        await store.clear?.(prefix)
        await store.close?.()
      })
      keyvTestSuite(suiteTest, K as typeof Keyv, adapter)
      keyvIteratorTests(suiteTest, K as typeof Keyv, adapter)
    })
  }
}
