// End to end through Redis: value -> encode -> SET -> GET -> decode, one pair after another, for
// Stowage and what users would otherwise pick, all in this one process against one Redis.
// Also Redis's own MEMORY USAGE of each stored key. Prints one JSON line: RedisPass.
// Redis: REDIS_URL, else 127.0.0.1:6379 if it answers, else a redis-server started for the run.
import { decode as msgpackDecode, Encoder } from '@msgpack/msgpack'
import { createKeyv } from '@keyv/redis'
import { createCache } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import { Packr } from 'msgpackr'
import { findOrStartRedis } from '@stowage/redis-server'
import { medianMsAsync } from './measure.js'
import { w1, w2, w4 } from './workloads.js'

export interface RedisCell {
  readonly opsPerSec: number
  readonly memory: number
}
export interface RedisRow {
  readonly workload: string
  readonly cells: Record<string, RedisCell>
}
export interface RedisPass {
  readonly rows: RedisRow[]
}

interface Method {
  readonly name: string
  set(key: string, value: unknown): Promise<unknown>
  get(key: string): Promise<unknown>
  /** The Redis key the method actually writes for `key`. */
  redisKey(key: string): string
}

const redis = await findOrStartRedis()
const url = redis.url

const client = new Redis(url)
const packr = new Packr({ useRecords: true })
const msgpack = new Encoder()
const keyv = createKeyv(url)
// Every method writes the very same Redis key (`b:<key>`), so MEMORY USAGE compares values alone.
const namespace = 'b'
// Every pair goes through Redis: no in-process tier (it would answer the GET from memory) and no breaker.
const cache = createCache({ store: createRedisStore({ client }), namespace, local: false, breaker: false })
const uncompressed = createCache({ store: createRedisStore({ client }), namespace, codec: { compress: 'never' }, local: false, breaker: false })
const asBuffer = (u8: Uint8Array) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength)

const methods: Method[] = [
  { name: 'ioredis + JSON', set: (k, v) => client.set(`b:${k}`, JSON.stringify(v)), get: async (k) => JSON.parse((await client.get(`b:${k}`)) as string), redisKey: (k) => `b:${k}` },
  {
    name: 'ioredis + @msgpack/msgpack',
    set: (k, v) => client.set(`b:${k}`, asBuffer(msgpack.encode(v))),
    get: async (k) => msgpackDecode((await client.getBuffer(`b:${k}`)) as Buffer),
    redisKey: (k) => `b:${k}`,
  },
  {
    name: 'ioredis + msgpackr records',
    set: (k, v) => client.set(`b:${k}`, packr.pack(v)),
    get: async (k) => packr.unpack((await client.getBuffer(`b:${k}`)) as Buffer),
    redisKey: (k) => `b:${k}`,
  },
  // Keyv stores under the key it is given, as JSON {"value": …} (its default serializer).
  { name: 'Keyv + @keyv/redis', set: (k, v) => keyv.set(`b:${k}`, v), get: (k) => keyv.get(`b:${k}`), redisKey: (k) => `b:${k}` },
  { name: 'Stowage (@stowage/redis)', set: (k, v) => cache.set(k, v), get: (k) => cache.get(k), redisKey: (k) => `${namespace}:${k}` },
  // The trade-off, shown: no deflate is faster on text-heavy values and bigger in Redis.
  { name: "Stowage, compress: 'never'", set: (k, v) => uncompressed.set(k, v), get: (k) => uncompressed.get(k), redisKey: (k) => `${namespace}:${k}` },
]

const sizes = (process.argv.find((a) => a.startsWith('--w1='))?.slice(5) ?? '1,10,100,1000,10000,100000,1000000').split(',').map(Number)
const workloads: Array<[string, () => unknown]> = [...sizes.map((n) => [`W1-${n}`, () => w1(n)] as [string, () => unknown]), ['W2', () => w2()], ['W4', () => w4()]]

// Three rounds, the method order rotated each round (the first method measured after a new
// workload pays for warm-up and GC of the last one); each figure is the median of its rounds.
const ROUNDS = 3
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const rows: RedisRow[] = []
for (const [workload, make] of workloads) {
  const value = make()
  const expected = JSON.stringify(value)
  const big = expected.length > 5_000_000
  const samples = new Map<string, number[]>(methods.map((m) => [m.name, []]))
  const memory = new Map<string, number>()
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < methods.length; i++) {
      const method = methods[(i + round) % methods.length] as Method
      const key = `${workload}-${Math.random().toString(36).slice(2, 10)}` // no `:`: every method stores it under the same name
      await method.set(key, value)
      if (round === 0) {
        if (JSON.stringify(await method.get(key)) !== expected) throw new Error(`${method.name} did not return ${workload} intact`)
        memory.set(method.name, Number(await client.memory('USAGE', method.redisKey(key), 'SAMPLES', '0')))
      }
      const ms = await medianMsAsync(
        async () => {
          await method.set(key, value)
          await method.get(key)
        },
        big ? 300 : 250,
        big ? 2 : 9,
      )
      samples.get(method.name)!.push(ms)
      await client.del(method.redisKey(key))
    }
  }
  const cells: Record<string, RedisCell> = {}
  for (const method of methods) cells[method.name] = { opsPerSec: 1000 / median(samples.get(method.name)!), memory: memory.get(method.name)! }
  rows.push({ workload, cells })
  process.stderr.write(`  ${workload} done\n`)
}

await keyv.disconnect()
await client.quit()
await redis.stop()
const pass: RedisPass = { rows }
console.log(JSON.stringify(pass))
