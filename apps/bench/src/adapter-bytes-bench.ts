// Redis bytes through the framework adapters (issue 26): the bench's real corpora written through
// Keyv 5 and unstorage 1.x, with their own Redis adapters and with Stowage's, into a redis-server
// of this run's own (so every key is ours and FLUSHALL touches nothing else). Each corpus value is
// one key; the figure is Redis's MEMORY USAGE (SAMPLES 0) summed over every key written, key names
// and Redis's per-key overhead included. Prints Markdown, then `RESULT <json>`.
import KeyvGzip from '@keyv/compress-gzip'
import KeyvRedis from '@keyv/redis'
import { createRedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import { createKeyv, createKeyvStore } from '@stowage/keyv'
import { stowageDriver } from '@stowage/unstorage'
import { Redis } from 'ioredis'
import { gunzipSync, gzipSync } from 'node:zlib'
import { Keyv } from 'keyv'
import { createStorage, type Storage } from 'unstorage'
import redisDriver from 'unstorage/drivers/redis'
import { realWorkloads } from './real-data.js'

interface Method {
  readonly name: string
  /** Writes every value under its own key; resolves when all are in Redis. */
  write(values: readonly unknown[]): Promise<void>
  close(): Promise<void>
}

const server = await startRedisServer()
const raw = new Redis(server.url)
const store = createRedisStore({ client: raw })

function keyv(name: string, k: Keyv, asText = false): Method {
  return {
    name,
    write: async (values) => {
      for (const [i, value] of values.entries()) if (!(await k.set(`v${i}`, asText ? JSON.stringify(value) : value))) throw new Error(`${name}: set failed`)
    },
    close: () => k.disconnect(),
  }
}

function unstorage(name: string, storage: Storage): Method {
  return {
    name,
    write: async (values) => {
      for (const [i, value] of values.entries()) await storage.setItem(`v${i}`, value as never)
    },
    close: () => storage.dispose(),
  }
}

const KEYV_DEFAULT = 'Keyv + @keyv/redis (default serializer)'
const KEYV_GZIP = 'Keyv + @keyv/redis + @keyv/compress-gzip (values as JSON text)'
const KEYV_GZIP_B64 = 'Keyv + @keyv/redis, serializer JSON → gzip → base64'
const KEYV_STOWAGE_ON = 'Keyv + @stowage/keyv (Keyv serialization on)'
const KEYV_STOWAGE = 'Keyv + @stowage/keyv (createKeyv: serialization off)'
const UNSTORAGE_REDIS = 'unstorage + its redis driver'
const UNSTORAGE_STOWAGE = 'unstorage + @stowage/unstorage'

const methods: Array<() => Method> = [
  () => keyv(KEYV_DEFAULT, new Keyv(new KeyvRedis(server.url))),
  // Keyv 5.6 hands its compressor the value itself, which pako refuses unless it is a string, and
  // then writes the deflated Uint8Array as a JSON object of numbers ({"0":120,"1":156,…}): so the
  // value goes in as its JSON text, the only way this pairing stores anything.
  () => keyv(KEYV_GZIP, new Keyv(new KeyvRedis(server.url), { compression: new KeyvGzip() }), true),
  // What a working compressed Keyv path looks like (Keyv 6's adapters are string → base64 string).
  () =>
    keyv(
      KEYV_GZIP_B64,
      new Keyv(new KeyvRedis(server.url), {
        serialize: (data) => gzipSync(JSON.stringify(data)).toString('base64'),
        deserialize: (text) => JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString()),
      }),
    ),
  () => keyv(KEYV_STOWAGE_ON, new Keyv({ store: createKeyvStore(store) })),
  () => keyv(KEYV_STOWAGE, createKeyv(store)),
  () => unstorage(UNSTORAGE_REDIS, createStorage({ driver: redisDriver({ url: server.url }) })),
  () => unstorage(UNSTORAGE_STOWAGE, createStorage({ driver: stowageDriver({ store }) })),
]

async function usage(): Promise<{ bytes: number; keys: number }> {
  let bytes = 0
  const keys = await raw.keys('*')
  for (const key of keys) bytes += (await raw.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) as number
  return { bytes, keys: keys.length }
}

const workloads = realWorkloads()
// Bytes by corpus and method; null where the method could not store the corpus (errors says why).
const result: Record<string, Record<string, number | null>> = {}
const errors: Record<string, string> = {}
for (const workload of workloads) {
  result[workload.name] = {}
  for (const make of methods) {
    await raw.flushall()
    const method = make()
    try {
      await method.write(workload.values)
      const { bytes, keys } = await usage()
      if (keys !== workload.values.length) throw new Error(`${keys} keys for ${workload.values.length} values`)
      result[workload.name]![method.name] = bytes
    } catch (e) {
      result[workload.name]![method.name] = null
      errors[`${method.name} on ${workload.name}`] = String((e as Error)?.message ?? e)
    }
    await method.close()
  }
}
await raw.quit()
await server.stop()

const fmt = (n: number) => n.toLocaleString('en')
const names = [KEYV_DEFAULT, KEYV_GZIP, KEYV_GZIP_B64, KEYV_STOWAGE_ON, KEYV_STOWAGE, UNSTORAGE_REDIS, UNSTORAGE_STOWAGE]
const baseOf = (name: string) => (name.startsWith('Keyv') ? KEYV_DEFAULT : UNSTORAGE_REDIS)
const lines: string[] = []
lines.push("Redis bytes (MEMORY USAGE of every key written), and each method ÷ its host's default Redis adapter (— : the method could not store that corpus):", '')
lines.push(`| corpus | ${names.join(' | ')} |`, `|---|${names.map(() => '---').join('|')}|`)
for (const [corpus, row] of Object.entries(result)) {
  const cell = (name: string) => {
    const bytes = row[name]
    const base = row[baseOf(name)]
    if (bytes === null || bytes === undefined) return '—'
    return base ? `${fmt(bytes)} (${(bytes / base).toFixed(3)}×)` : fmt(bytes)
  }
  lines.push(`| ${corpus} | ${names.map(cell).join(' | ')} |`)
}
// Totals over the corpora every method stored, so each ratio compares like with like.
const complete = Object.values(result).filter((row) => names.every((name) => row[name] !== null))
const total = (name: string) => complete.reduce((sum, row) => sum + (row[name] as number), 0)
lines.push(`| the ${complete.length} corpora all stored | ${names.map((name) => `${fmt(total(name))} (${(total(name) / total(baseOf(name))).toFixed(3)}×)`).join(' | ')} |`)
lines.push('')
for (const [what, message] of Object.entries(errors)) lines.push(`- ${what} fails: \`${message.split('\n')[0]}\``)
const ratio = total(KEYV_STOWAGE) / total(KEYV_DEFAULT)
const gzipRatio = total(KEYV_STOWAGE) / total(KEYV_GZIP)
const b64Ratio = total(KEYV_STOWAGE) / total(KEYV_GZIP_B64)
lines.push(
  '',
  `Issue 26's Keyv target, over the corpora all stored: Redis bytes ≤ 0.5× @keyv/redis with Keyv's default serializer (${ratio.toFixed(3)}×: ${ratio <= 0.5 ? 'met' : '**missed**'}) and below @keyv/compress-gzip (${gzipRatio.toFixed(3)}× of it: ${gzipRatio < 1 ? 'met' : '**missed**'}; ${b64Ratio.toFixed(3)}× of the working JSON → gzip → base64 serializer).`,
)
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify({ bytes: result, errors })}`)
