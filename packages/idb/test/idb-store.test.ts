import { createCache, createCodec, inspect, StowageErrorCode } from '@stowage/core'
import { describeStoreContract } from '@stowage/store-contract'
import { openDB, unwrap } from 'idb'
import { afterEach, describe, expect, it } from 'vitest'
import { createIdbStore, type IdbStoreEvents } from '../src/index.js'
import { READS_PER_TASK, SharedReads } from '../src/shared-reads.js'

const dbName = () => `stowage-test-${Math.random().toString(36).slice(2)}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describeStoreContract({ name: 'indexeddb', createStore: () => createIdbStore({ dbName: dbName() }) })

describe('indexeddb store', () => {
  const restores: Array<() => void> = []
  afterEach(() => {
    while (restores.length) restores.pop()!()
  })

  it('refuses an option it does not know: a misspelt dbName would open the default database', () => {
    expect(() => createIdbStore({ dbname: 'mine' } as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT, message: 'unknown createIdbStore option "dbname" (did you mean dbName?)' }) as Error)
  })

  it('keeps each value as an exact-length ArrayBuffer, with expiry and access time', async () => {
    const name = dbName()
    const store = createIdbStore({ dbName: name })
    const backing = new Uint8Array(1024).fill(7)
    await store.set('k', backing.subarray(10, 20), { ttl: 60_000 })
    await store.close()
    const db = await openDB(name)
    const row = await db.get('entries', 'k')
    db.close()
    expect(row.value).toBeInstanceOf(ArrayBuffer)
    expect(row.value.byteLength).toBe(10)
    expect(row.expiresAt).toBeGreaterThan(Date.now())
    expect(row.accessedAt).toBeLessThanOrEqual(Date.now())
  })

  it('sweeps expired entries just after it opens, without holding up the first reads', async () => {
    const name = dbName()
    const first = createIdbStore({ dbName: name })
    await first.set('short', new Uint8Array([1]), { ttl: 20 })
    await first.set('long', new Uint8Array([2]))
    await first.close()
    await sleep(50)
    const second = createIdbStore({ dbName: name })
    const swept = new Promise((resolve) => second.on('swept', resolve))
    expect(await second.get('short')).toBeUndefined()
    expect(await second.byteSize()).toBe(1 + 4 * 2) // only "long" is left accounted
    const before = await openDB(name)
    expect(await before.getAllKeys('entries')).toStrictEqual(['long', 'short']) // not swept yet: the reads came first
    before.close()
    await swept
    const db = await openDB(name)
    expect(await db.getAllKeys('entries')).toStrictEqual(['long'])
    db.close()
    await second.close()
  })

  it('evicts the least recently used entries to stay within maxBytes', async () => {
    const name = dbName()
    const first = createIdbStore({ dbName: name, maxBytes: 3 * (100 + 2) })
    for (const key of ['a', 'b', 'c']) {
      await first.set(key, new Uint8Array(100))
      await sleep(5)
    }
    await first.get('a')
    // Reads note access times in batches; closing writes the pending ones, and the next store sees them.
    await first.close()
    const store = createIdbStore({ dbName: name, maxBytes: 3 * (100 + 2) })
    const evicted: string[] = []
    store.on('evict', (e) => evicted.push(...e.keys))
    await store.set('d', new Uint8Array(100))
    expect(evicted).toStrictEqual(['b'])
    expect(await store.get('b')).toBeUndefined()
    for (const key of ['a', 'c', 'd']) expect(await store.get(key)).toBeDefined()
    expect(await store.byteSize()).toBe(3 * 102)
    await expect(store.set('huge', new Uint8Array(1000))).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    await store.close()
  })

  it('on QuotaExceededError evicts least recently used entries and retries once', async () => {
    const store = createIdbStore({ dbName: dbName() })
    for (const key of ['old1', 'old2', 'old3']) {
      await store.set(key, new Uint8Array(50))
      await sleep(5) // distinct access times, so the LRU order is the write order
    }
    const evicted: Array<IdbStoreEvents['evict']> = []
    store.on('evict', (e) => evicted.push(e))
    // The browser's answer when the origin's quota is full, injected for one put.
    const put = IDBObjectStore.prototype.put
    let failures = 1
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'entries' && failures-- > 0) throw new DOMException('quota', 'QuotaExceededError')
      return put.apply(this, args)
    }
    restores.push(() => (IDBObjectStore.prototype.put = put))
    await store.set('new', new Uint8Array(50))
    expect(evicted).toHaveLength(1)
    expect(evicted[0]).toStrictEqual({ keys: ['old1'], reason: 'quota' })
    expect(await store.get('new')).toBeDefined()
    failures = 2 // fails again after eviction: a typed error, and nothing already stored is lost
    await expect(store.set('newer', new Uint8Array(50))).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    expect(await store.get('new')).toBeDefined()
    await store.close()
  })

  it('falls back to memory where IndexedDB is missing (server-side rendering), and says so', async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true, writable: true })
    restores.push(() => Object.defineProperty(globalThis, 'indexedDB', saved!))
    const store = createIdbStore({ dbName: dbName() })
    const fallbacks: string[] = []
    store.on('fallback', (e) => fallbacks.push(e.reason))
    await store.set('k', new Uint8Array([1]))
    expect([...((await store.get('k')) as Uint8Array)]).toStrictEqual([1])
    expect(store.backend).toBe('memory')
    expect(fallbacks).toStrictEqual(['IndexedDB is not available in this environment'])
    await store.close()
  })

  it('does not wait forever when another connection blocks the upgrade: falls back after openTimeout', async () => {
    const name = dbName()
    const holder = await openDB(name, 1) // an old tab that never lets go
    const store = createIdbStore({ dbName: name, openTimeout: 200 })
    const fallbacks: unknown[] = []
    store.on('fallback', (e) => fallbacks.push(e))
    const started = Date.now()
    await store.set('k', new Uint8Array([1]))
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(store.backend).toBe('memory')
    expect(fallbacks).toHaveLength(1)
    holder.close()
    await store.close()
  })

  it('steps aside for a newer version opened elsewhere, then reopens', async () => {
    const name = dbName()
    const store = createIdbStore({ dbName: name })
    const reopens: string[] = []
    store.on('reopen', (e) => reopens.push(e.reason))
    await store.set('k', new Uint8Array([1]))
    const newer = await openDB(name, 10) // a newer tab's upgrade: not blocked by us
    newer.close()
    expect(reopens).toHaveLength(1)
    expect([...((await store.get('k')) as Uint8Array)]).toStrictEqual([1])
    expect(store.backend).toBe('indexeddb')
    await store.close()
  })

  it('creates its stores in the first open of a new database, and shares a database with other stores', async () => {
    const name = dbName()
    const first = createIdbStore({ dbName: name })
    await first.set('k', new Uint8Array([1]))
    await first.close()
    // A new database is created with the stores at version 1: one open, no second upgrade.
    let db = await openDB(name)
    expect(db.version).toBe(1)
    expect([...db.objectStoreNames].sort()).toStrictEqual(['entries', 'entries:meta'])
    db.close()
    // Another store in the same database is added by one upgrade, and neither sees the other's keys.
    const second = createIdbStore({ dbName: name, storeName: 'other' })
    await second.set('k', new Uint8Array([2]))
    await second.close()
    const again = createIdbStore({ dbName: name })
    expect(await again.get('k')).toStrictEqual(new Uint8Array([1]))
    await again.close()
    db = await openDB(name)
    expect(db.version).toBe(2)
    expect([...db.objectStoreNames].sort()).toStrictEqual(['entries', 'entries:meta', 'other', 'other:meta'])
    db.close()
  })

  // Chromium's way: every put succeeds, then the commit aborts with tx.error = QuotaExceededError.
  function quotaOnCommit(failures: { n: number }) {
    const put = IDBObjectStore.prototype.put
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      const request = put.apply(this, args)
      if (this.name === 'entries' && failures.n-- > 0) {
        const tx = this.transaction
        request.addEventListener('success', () => {
          Object.defineProperty(tx, 'error', { value: new DOMException('quota', 'QuotaExceededError'), configurable: true })
          tx.abort()
        })
      }
      return request
    }
    restores.push(() => (IDBObjectStore.prototype.put = put))
  }

  it('a quota abort at commit (Chromium\'s way: every put succeeds, then the commit fails) is evicted for and retried', async () => {
    const store = createIdbStore({ dbName: dbName() })
    for (const key of ['old1', 'old2']) {
      await store.set(key, new Uint8Array(50))
      await sleep(5)
    }
    const evicted: Array<IdbStoreEvents['evict']> = []
    store.on('evict', (e) => evicted.push(e))
    const failures = { n: 1 }
    quotaOnCommit(failures)
    await store.set('new', new Uint8Array(50))
    expect(evicted).toStrictEqual([{ keys: ['old1'], reason: 'quota' }])
    expect(await store.get('new')).toBeDefined()
    failures.n = 2
    await expect(store.set('newer', new Uint8Array(50))).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    expect(await store.get('newer')).toBeUndefined()
    await store.close()
  })

  it('a put that throws mid-batch writes none of the batch, and the error is typed', async () => {
    const store = createIdbStore({ dbName: dbName() })
    await store.set('x', new Uint8Array(1))
    const put = IDBObjectStore.prototype.put
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if ((args[0] as { key: string }).key === 'b') throw new DOMException('nope', 'DataCloneError')
      return put.apply(this, args)
    }
    restores.push(() => (IDBObjectStore.prototype.put = put))
    const batch = ['a', 'b', 'c'].map((key) => ({ key, value: new Uint8Array([1]) }))
    await expect(store.setMany(batch)).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await sleep(20)
    expect(await store.getMany(['a', 'b', 'c', 'x'])).toStrictEqual([undefined, undefined, undefined, new Uint8Array(1)])
    await store.close()
  })

  it('a large batch is all committed when setMany resolves (seen by another connection)', async () => {
    const name = dbName()
    const store = createIdbStore({ dbName: name })
    const keys = Array.from({ length: 500 }, (_, i) => `k${i}`)
    await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i & 255, 7]) })))
    const other = await openDB(name)
    expect(await other.count('entries')).toBe(500)
    other.close()
    const got = await store.getMany(keys)
    got.forEach((v, i) => expect(v).toStrictEqual(new Uint8Array([i & 255, 7])))
    await store.close()
  })

  // Notes the mode of each transaction made and how many reads had been asked for when it was, until the test ends.
  // (readsPer: the reads asked for of each transaction, in the order of their first: a sweep's count is not a read.)
  function countRequests() {
    const modes: string[] = []
    const getsBefore: number[] = []
    const perTransaction = new Map<IDBTransaction, number>()
    let gets = 0
    const transaction = IDBDatabase.prototype.transaction
    const get = IDBObjectStore.prototype.get
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      modes.push(args[1] ?? 'readonly')
      getsBefore.push(gets)
      return transaction.apply(this, args)
    } as IDBDatabase['transaction']
    IDBObjectStore.prototype.get = function (this: IDBObjectStore, query: IDBValidKey | IDBKeyRange) {
      gets++
      const request = get.call(this, query)
      perTransaction.set(this.transaction, (perTransaction.get(this.transaction) ?? 0) + 1)
      return request
    }
    restores.push(() => {
      IDBDatabase.prototype.transaction = transaction
      IDBObjectStore.prototype.get = get
    })
    return { modes, getsBefore, readsPer: () => [...perTransaction.values()] }
  }

  it('reads asked for in one task share one read-only transaction, each with its own answer', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`)
    await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i & 255, i >> 8]) })))
    const { readsPer } = countRequests()
    const got = await Promise.all([...keys.map((key) => store.get(key)), store.get('missing'), store.getMany(keys.slice(0, 3))])
    expect(readsPer()).toStrictEqual([104])
    keys.forEach((_, i) => expect(got[i]).toStrictEqual(new Uint8Array([i & 255, i >> 8])))
    expect(got[100]).toBeUndefined()
    expect(got[101]).toStrictEqual(keys.slice(0, 3).map((_, i) => new Uint8Array([i, 0])))
    // (Reads in later tasks go in transactions of their own: the next test. A read after a 0 ms
    // timer is not one: fake-indexeddb may keep the transaction going past it, as it did in a busy CI run.)
    await store.close()
  })

  it(`asks for ${READS_PER_TASK} reads in a task at most, the rest in later tasks; a getMany in one transaction however large`, async () => {
    const store = createIdbStore({ dbName: dbName() })
    const keys = Array.from({ length: 2 * READS_PER_TASK + 10 }, (_, i) => `k${i}`)
    await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i & 255, i >> 8]) })))
    await store.get('k0') // the database is open: what follows asks at once
    await sleep(0) // and in a task of its own (the read's transaction has ended)
    const { readsPer } = countRequests()
    const got = await Promise.all(keys.map((key) => store.get(key)))
    got.forEach((v, i) => expect(v).toStrictEqual(new Uint8Array([i & 255, i >> 8])))
    // This task's transaction took READS_PER_TASK reads; the others waited for later tasks, READS_PER_TASK each.
    // (fake-indexeddb may keep the earlier read's transaction going into this task: then the first
    // slice is that transaction's, one read short.)
    const slices = readsPer()
    expect(slices).toHaveLength(3)
    expect(slices.every((n) => n <= READS_PER_TASK)).toBe(true)
    expect(slices[1]).toBe(READS_PER_TASK)
    expect(slices.reduce((x, y) => x + y)).toBe(keys.length)
    // A getMany is one snapshot: one transaction, all its reads at once.
    await sleep(0)
    const many = await store.getMany(keys)
    many.forEach((v, i) => expect(v).toStrictEqual(new Uint8Array([i & 255, i >> 8])))
    const after = readsPer()
    expect(after.length - slices.length).toBeLessThanOrEqual(1)
    expect(after.reduce((x, y) => x + y) - keys.length).toBe(keys.length)
    await store.close()
  })

  it('reads waiting for a later task are asked for before a write begins, and do not see it; reads asked for after it do', async () => {
    for (const maxBytes of [undefined, 1_000_000]) {
      const name = dbName()
      const [store, other] = [createIdbStore({ dbName: name, maxBytes }), createIdbStore({ dbName: name, maxBytes })]
      const keys = Array.from({ length: READS_PER_TASK + 2 }, (_, i) => `k${i}`)
      await store.setMany(keys.map((key) => ({ key, value: new Uint8Array([1]) })))
      await Promise.all([store.get('k0'), other.get('k0')])
      const before = keys.map((key) => store.get(key))
      // The last two wait; a write by another store of the page (another connection) begins.
      const write = other.setMany(keys.map((key) => ({ key, value: new Uint8Array([2]) })))
      const after = store.get(keys.at(-1)!)
      await write
      expect((await Promise.all(before)).map((v) => v![0])).toStrictEqual(keys.map(() => 1))
      expect(await after).toStrictEqual(new Uint8Array([2]))
      await Promise.all([store.close(), other.close()])
    }
  })

  it('calls made while the database opens keep their order: the reads before a write do not see it, the reads after it do', async () => {
    const name = dbName()
    const writer = createIdbStore({ dbName: name })
    const keys = Array.from({ length: 2 * READS_PER_TASK + 50 }, (_, i) => `k${i}`)
    await writer.setMany(keys.map((key) => ({ key, value: new Uint8Array([1]) })))
    await writer.close()
    const store = createIdbStore({ dbName: name })
    const { modes, getsBefore, readsPer } = countRequests()
    // Every call before the database has opened: reads, a write of every key, reads again.
    const before = keys.map((key) => store.get(key))
    const write = store.setMany(keys.map((key) => ({ key, value: new Uint8Array([2]) })))
    const after = keys.slice(0, 3).map((key) => store.get(key))
    expect((await Promise.all(before)).map((v) => v![0])).toStrictEqual(keys.map(() => 1))
    await write
    expect((await Promise.all(after)).map((v) => v![0])).toStrictEqual([2, 2, 2])
    // The reads past the first transaction's READS_PER_TASK were asked for when the write began, before it.
    expect(readsPer()).toStrictEqual([READS_PER_TASK, keys.length - READS_PER_TASK, 3])
    expect(getsBefore[modes.indexOf('readwrite')]).toBe(keys.length)
    await store.close()
  })

  it('a write asks first for the waiting reads of the keys it writes, and leaves the others to their turn', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const keys = Array.from({ length: READS_PER_TASK + 20 }, (_, i) => `k${i}`)
    await store.setMany(keys.map((key) => ({ key, value: new Uint8Array([1]) })))
    await store.get('k0')
    await sleep(0)
    const { readsPer } = countRequests()
    const reads = keys.map((key) => store.get(key))
    // k130 waits for a later task; it is written now, and so is a key nobody reads.
    const write = store.setMany([
      { key: 'k130', value: new Uint8Array([2]) },
      { key: 'other', value: new Uint8Array([2]) },
    ])
    const got = (await Promise.all(reads)).map((v) => v![0])
    await write
    expect(got).toStrictEqual(keys.map(() => 1))
    // The first task's READS_PER_TASK, then k130 alone before the write, then the others in their turn
    // (the first one read short when fake-indexeddb kept the earlier read's transaction going).
    const slices = readsPer()
    expect(slices[1]).toBe(1)
    expect(slices).toHaveLength(3)
    expect(slices.reduce((a, b) => a + b)).toBe(keys.length)
    expect(await store.get('k130')).toStrictEqual(new Uint8Array([2]))
    await store.close()
  })

  it("reads of a store still asking for its first reads do not see another store's write asked for after them", async () => {
    const name = dbName()
    const other = createIdbStore({ dbName: name })
    const keys = Array.from({ length: 3 * READS_PER_TASK }, (_, i) => `k${i}`)
    await other.setMany(keys.map((key) => ({ key, value: new Uint8Array([1]) })))
    const store = createIdbStore({ dbName: name })
    const early = keys.map((key) => store.get(key)) // while it opens
    let late!: Promise<Uint8Array | undefined>
    let write!: Promise<void>
    await early[0]!.then(() => {
      // Reads are still waiting for a later task: this one waits behind them, then the other store writes.
      late = store.get('k0')
      write = other.set('k0', new Uint8Array([2]))
    })
    await write
    expect(await late).toStrictEqual(new Uint8Array([1]))
    expect((await Promise.all(early)).every((v) => v![0] === 1)).toBe(true)
    expect(await store.get('k0')).toStrictEqual(new Uint8Array([2]))
    await Promise.all([store.close(), other.close()])
  })

  it('with fallback: false, reads asked for while the database opens fail with the reason it could not', async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true, writable: true })
    restores.push(() => Object.defineProperty(globalThis, 'indexedDB', saved!))
    const store = createIdbStore({ dbName: dbName(), fallback: false })
    const reads = [store.get('a'), store.getWithTtl('b'), store.getMany(['c'])]
    for (const read of reads) await expect(read).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    // And so do the reads asked for after it failed (a review found they waited for ever).
    await expect(store.get('e')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await expect(store.set('d', new Uint8Array([1]))).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })

  it('calls made before close() go on: while the database opens, and over the memory fallback', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const read = store.get('x')
    const closed = store.close()
    await expect(read).resolves.toBeUndefined()
    await closed
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true, writable: true })
    restores.push(() => Object.defineProperty(globalThis, 'indexedDB', saved!))
    const memory = createIdbStore({ dbName: dbName() })
    const reads = Array.from({ length: 3 * READS_PER_TASK }, (_, i) => memory.get(`k${i}`))
    let closing!: Promise<void>
    await reads[0]!.then(() => (closing = memory.close()))
    expect((await Promise.allSettled(reads)).filter((r) => r.status === 'rejected')).toStrictEqual([])
    await closing
  })

  it('close() while the database opens closes its connection once it has opened (none left open)', async () => {
    const name = dbName()
    const store = createIdbStore({ dbName: name, sweepInterval: 10 })
    const reopened: string[] = []
    store.on('reopen', ({ reason }) => reopened.push(reason))
    const read = store.get('x')
    await store.close()
    await expect(read).resolves.toBeUndefined()
    // A connection left open is told of the deletion (the store's 'reopen'). Not `blocked`: WebKit
    // fires it for a connection whose close() waits on its own, too.
    await new Promise<void>((resolve, reject) => {
      const deletion = indexedDB.deleteDatabase(name)
      deletion.onsuccess = () => resolve()
      deletion.onerror = () => reject(deletion.error)
    })
    expect(reopened).toStrictEqual([])
  })

  it('a second close() resolves once the connection is closed, as the first does (found by a review)', async () => {
    const store = createIdbStore({ dbName: dbName() })
    void store.get('x')
    const order: string[] = []
    await Promise.all([store.close().then(() => order.push('first')), store.close().then(() => order.push('second'))])
    expect(order).toStrictEqual(['first', 'second'])
  })

  it('an opening given up on past openTimeout leaves no connection once it opens, and no event from it (found by a review)', async () => {
    const name = dbName()
    const holder = await openDB(name, 1) // an old tab that never lets go: the store's upgrade waits
    const store = createIdbStore({ dbName: name, openTimeout: 200 })
    const heard: string[] = []
    store.on('reopen', ({ reason }) => heard.push(reason))
    expect(await store.get('x')).toBeUndefined() // from the memory fallback
    expect(store.backend).toBe('memory')
    holder.close() // the upgrade goes through now, and its connection opens late
    await sleep(100)
    // A connection left open would be told of the deletion, and would drop the memory store it fell back to.
    await new Promise<void>((resolve, reject) => {
      const deletion = indexedDB.deleteDatabase(name)
      deletion.onsuccess = () => resolve()
      deletion.onerror = () => reject(deletion.error)
    })
    await store.set('y', new Uint8Array([1]))
    expect([heard, store.backend, await store.get('y')]).toStrictEqual([[], 'memory', new Uint8Array([1])])
    await store.close()
  })

  it('no sweep runs after close(), also when close() came while the database opened', async () => {
    const store = createIdbStore({ dbName: dbName(), sweepInterval: 10 })
    const swept: unknown[] = []
    store.on('swept', (e) => swept.push(e))
    void store.get('x')
    await store.close()
    await sleep(1300)
    expect(swept).toStrictEqual([])
  })

  it('reads waiting for a later task fail, all of them, when the connection has closed under them', async () => {
    const name = dbName()
    const db = await openDB(name, 1, { upgrade: (d) => d.createObjectStore('e', { keyPath: 'key' }) })
    const reads = new SharedReads(unwrap(db), 'e')
    const asked = Array.from({ length: 2 * READS_PER_TASK + 44 }, (_, i) => reads.get(`k${i}`))
    db.close() // as the browser closing it would, with no askWaiting first
    const settled = await Promise.allSettled(asked)
    expect(settled.slice(0, READS_PER_TASK).every((r) => r.status === 'fulfilled')).toBe(true)
    expect(settled.slice(READS_PER_TASK).every((r) => r.status === 'rejected')).toBe(true)
  })

  it('reads waiting for a later task when the store closes are answered', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const keys = Array.from({ length: READS_PER_TASK + 5 }, (_, i) => `k${i}`)
    await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i & 255]) })))
    await store.get('k0')
    const reads = keys.map((key) => store.get(key))
    const closed = store.close()
    expect((await Promise.all(reads)).map((v) => v![0])).toStrictEqual(keys.map((_, i) => i & 255))
    await closed
  })

  it('a read asked for after a write in the same task sees it; one asked for before does not', async () => {
    for (const maxBytes of [undefined, 1_000_000]) {
      const store = createIdbStore({ dbName: dbName(), maxBytes })
      await store.setMany([
        { key: 'a', value: new Uint8Array([1]) },
        { key: 'b', value: new Uint8Array([2]) },
      ])
      const [before, , after, beforeDelete, , afterDelete] = await Promise.all([store.get('a'), store.set('a', new Uint8Array([9])), store.get('a'), store.get('b'), store.delete('b'), store.get('b')])
      expect([before, after, beforeDelete, afterDelete]).toStrictEqual([new Uint8Array([1]), new Uint8Array([9]), new Uint8Array([2]), undefined])
      // Through another store of the page (another connection to the same database) too.
      const name = dbName()
      const [one, two] = [createIdbStore({ dbName: name, maxBytes }), createIdbStore({ dbName: name, maxBytes })]
      await one.set('k', new Uint8Array([1]))
      await two.get('k')
      const [old, , now] = await Promise.all([two.get('k'), one.set('k', new Uint8Array([2])), two.get('k')])
      expect([old, now]).toStrictEqual([new Uint8Array([1]), new Uint8Array([2])])
      await Promise.all([store.close(), one.close(), two.close()])
    }
  })

  it('works under a Cache', async () => {
    const cache = createCache({ store: createIdbStore({ dbName: dbName() }), namespace: 'app' })
    const value = { rows: Array.from({ length: 1000 }, (_, i) => ({ i, even: i % 2 === 0 })), at: new Date(5) }
    await cache.set('v', value)
    expect(await cache.get('v')).toStrictEqual(value)
    await cache.clear()
    expect(await cache.get('v')).toBeUndefined()
  })

  it("keeps a server's deflated envelope inflated in a browser, so that reads after a reload need no inflate", async () => {
    const inBrowser = typeof document !== 'undefined'
    const name = dbName()
    const store = createIdbStore({ dbName: name })
    const cache = createCache({ store, namespace: 'app' })
    const value = { rows: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `row ${i}`, even: i % 2 === 0 })) }
    // As a Node server sends it: deflated from 1 KiB.
    const sent = createCodec({ compressThreshold: 1024 }).encode(value)
    expect(inspect(sent).compression).toBe('deflate-raw')
    expect(await cache.acceptBytes('v', sent)).toStrictEqual(value)
    await store.close()
    const kept = await createIdbStore({ dbName: name }).get('app:v')
    // A browser's codec writes uncompressed under 256 KiB, Node's deflates from 1 KiB: each keeps what it would have written.
    expect(inspect(kept!)).toMatchObject({ compression: inBrowser ? 'none' : 'deflate-raw', payloadLength: inspect(sent).payloadLength })
    expect(await createCache({ store: createIdbStore({ dbName: name }), namespace: 'app' }).get('v')).toStrictEqual(value)
  })
})

describe('storage helpers', () => {
  it('estimate() reports usage and quota where the platform has them, and persist() answers with a boolean', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const estimate = await store.estimate()
    if (typeof navigator !== 'undefined' && typeof navigator.storage?.estimate === 'function') {
      expect(estimate!.quota).toBeGreaterThan(0)
      expect(estimate!.usage).toBeGreaterThanOrEqual(0)
    } else {
      expect(estimate).toBeUndefined()
    }
    const asked = Date.now()
    expect(typeof (await store.persist({ timeout: 500 }))).toBe('boolean') // Firefox asks the user and would wait for ever
    expect(Date.now() - asked).toBeLessThan(2_000)
    await store.close()
  })

  it.skipIf(typeof navigator === 'undefined' || !navigator.storage?.persist)('persist() answers false when the browser leaves the question open past its timeout', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const storage = navigator.storage as unknown as Record<string, unknown>
    // What Firefox does while its permission prompt waits for a user who never answers (own
    // properties over the prototype's methods, deleted afterwards).
    Object.assign(storage, { persist: () => new Promise<boolean>(() => {}), persisted: async () => false })
    try {
      expect(await store.persist({ timeout: 100 })).toBe(false)
    } finally {
      delete storage.persist
      delete storage.persisted
    }
    await store.close()
  })
})
