import { createCache, createCodec, DICTIONARY_KEY_PREFIX, inspect, trainDictionary } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, STACK_LINE, uniquePrefix } from './run-cli.js'

// GitHub users as the webhook examples give them: small values of one kind, the case dictionaries are for.
const user = (i: number) => ({
  login: `user${i}`,
  id: 1000 + i,
  node_id: `MDQ6VXNlcj${(1000 + i).toString(36)}`,
  avatar_url: `https://avatars.githubusercontent.com/u/${1000 + i}?v=4`,
  url: `https://api.github.com/users/user${i}`,
  html_url: `https://github.com/user${i}`,
  followers_url: `https://api.github.com/users/user${i}/followers`,
  repos_url: `https://api.github.com/users/user${i}/repos`,
  type: i % 7 === 0 ? 'Organization' : 'User',
  site_admin: false,
})

describe('stowage train', () => {
  it('samples the values under a pattern, trains, measures on held-out values, and stores the dictionary where a Cache finds it', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('train')
    const pipeline = client.pipeline()
    for (let i = 0; i < 150; i++) pipeline.set(`${p}users:${i}`, JSON.stringify(user(i)), 'EX', 600)
    // Envelopes are learnt from too; other strings and Stowage's own keys are passed over.
    for (let i = 150; i < 200; i++) pipeline.set(`${p}users:${i}`, Buffer.from(createCodec().encode(user(i))), 'EX', 600)
    pipeline.set(`${p}users:plain`, 'not json', 'EX', 600)
    // A value the codec refuses (nested past maxDepth) is left out alone, not the end of the run.
    pipeline.set(`${p}users:deep`, '['.repeat(3000) + ']'.repeat(3000), 'EX', 600)
    pipeline.set(`${p}users:#tag:x`, 'generation', 'EX', 600)
    await pipeline.exec()
    const output = join(tmpdir(), `${p}dict.bin`)

    const { code, stdout, stderr } = await runCli(['train', url, '--match', `${p}users:*`, '--size', '2048', '--json', '-o', output])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.keys).toBe(202)
    expect(report.reserved).toBe(1)
    expect(report.unreadable).toBe(2)
    expect(report.trainedOn + report.measuredOn).toBe(200)
    expect(report.measuredOn).toBe(40)
    // What the issue measured on such values: the dictionary takes small values far below their size without it.
    expect(report.measured.with).toBeLessThan(report.measured.without * 0.6)
    expect(report.dictionary.stored).toBe(true)
    expect(report.dictionary.key).toBe(`${DICTIONARY_KEY_PREFIX}${report.dictionary.id}`)
    const dictionary = new Uint8Array(await readFile(output))
    expect(dictionary.length).toBeLessThanOrEqual(2048)

    // A writer with the trained bytes; a Cache that was never given them reads its values.
    const store = createRedisStore({ client })
    await createCache({ store, namespace: `${p}app`, codec: { dictionaries: [dictionary] } }).set('u1', user(1))
    expect(inspect((await client.getBuffer(`${p}app:u1`))!).dictionaryId?.toString(16).padStart(8, '0')).toBe(report.dictionary.id)
    expect(await createCache({ store, namespace: `${p}app`, local: false }).get('u1')).toStrictEqual(user(1))
    await client.del(report.dictionary.key)
    client.disconnect()
  })

  it('--dry-run stores nothing; too few values is refused with exit code 1', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('train-dry')
    const pipeline = client.pipeline()
    for (let i = 0; i < 30; i++) pipeline.set(`${p}u:${i}`, JSON.stringify(user(i)), 'EX', 600)
    await pipeline.exec()
    const dry = await runCli(['train', url, '--match', `${p}u:*`, '--json', '--dry-run'])
    expect(dry.code).toBe(0)
    const report = JSON.parse(dry.stdout)
    expect(report.dictionary.stored).toBe(false)
    expect(await client.exists(report.dictionary.key)).toBe(0)
    const few = await runCli(['train', url, '--match', `${p}u:1*`])
    expect(few.code).toBe(1)
    expect(few.stderr).toMatch(/11 usable values .* at least 20/)
    // Values too small to learn from: said so, nothing stored, exit code 1 (not an empty dictionary).
    const tiny = uniquePrefix('train-tiny')
    const small = client.pipeline()
    for (let i = 0; i < 30; i++) small.set(`${tiny}${i}`, JSON.stringify([i]), 'EX', 600)
    await small.exec()
    for (const args of [[], ['--dry-run']]) {
      const none = await runCli(['train', url, '--match', `${tiny}*`, ...args])
      expect(none.code).toBe(1)
      expect(none.stderr).toMatch(/too small to learn a dictionary from/)
      expect(none.stderr).not.toMatch(STACK_LINE)
    }
    client.disconnect()
  })
})

describe('stowage inspect, an envelope of a preset dictionary', () => {
  it('names the dictionary, says whether this Redis holds it, and decodes with it when it does', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('inspect-dict')
    const dictionary = trainDictionary(Array.from({ length: 200 }, (_, i) => user(i + 500)), { size: 2048 })
    const codec = createCodec({ dictionaries: [dictionary] })
    const bytes = codec.encode(user(7))
    const id = inspect(bytes).dictionaryId!.toString(16).padStart(8, '0')
    await client.set(`${p}u7`, Buffer.from(bytes), 'EX', 600)

    const missing = await runCli(['inspect', url, `${p}u7`])
    expect(missing.code).toBe(1)
    expect(missing.stdout).toContain(`0x${id} (not in this Redis: no key #dict:${id}`)

    const store = createRedisStore({ client })
    await createCache({ store, namespace: `${p}w`, codec: { dictionaries: [dictionary] } }).set('any', 1) // stores the dictionary
    const found = await runCli(['inspect', url, `${p}u7`, '--json'])
    expect(found.code).toBe(0)
    const report = JSON.parse(found.stdout)
    expect(report.source.redis.dictionary).toEqual({ inStore: 'yes' })
    expect(report.crc).toBe('ok')
    expect(report.value).toEqual(user(7))

    // A forged entry under the id is refused, and the value is not decoded with it.
    await client.set(`#dict:${id}`, Buffer.from(createCodec({ compress: 'never' }).encode(new Uint8Array(2048).fill(1))))
    const forged = await runCli(['inspect', url, `${p}u7`])
    expect(forged.code).toBe(1)
    expect(forged.stdout).toMatch(/#dict:[0-9a-f]{8} in this Redis is refused: .*another id/)
    await client.del(`#dict:${id}`)
    client.disconnect()
  })
})

describe('stowage scan, with a dictionary', () => {
  it('estimates the JSON values with a dictionary trained on the sample, beside the estimate without', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('scan-dict')
    const pipeline = client.pipeline()
    for (let i = 0; i < 100; i++) pipeline.set(`${p}u:${i}`, JSON.stringify(user(i)), 'EX', 600)
    await pipeline.exec()
    const { code, stdout } = await runCli(['scan', url, '--match', `${p}*`, '--json', '--sample', '100'])
    expect(code).toBe(0)
    const d = JSON.parse(stdout).jsonEstimate.withDictionary
    expect(d).toMatchObject({ trainedOn: 80, measuredOn: 20 })
    expect(d.ratio).toBeLessThan(d.ratioWithout * 0.7)
    const few = JSON.parse((await runCli(['scan', url, '--match', `${p}*`, '--json', '--sample', '30'])).stdout)
    expect(few.jsonEstimate.withDictionary).toBeNull()
    client.disconnect()
  })
})

describe('stowage convert --dictionary', () => {
  it('writes the envelopes with the stored dictionary, which a Cache over that Redis reads; an id the Redis lacks is refused', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-dict')
    const pipeline = client.pipeline()
    for (let i = 0; i < 60; i++) pipeline.set(`${p}u:${i}`, JSON.stringify(user(i)), 'EX', 600)
    await pipeline.exec()
    const trained = JSON.parse((await runCli(['train', url, '--match', `${p}u:*`, '--size', '2048', '--json'])).stdout)
    const missing = await runCli(['convert', url, '--match', `${p}u:*`, '--dictionary', 'deadbeef'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no dictionary deadbeef .*stowage train/)
    expect(await client.get(`${p}u:1`)).toBe(JSON.stringify(user(1)))

    const { code } = await runCli(['convert', url, '--match', `${p}u:*`, '--dictionary', trained.dictionary.id])
    expect(code).toBe(0)
    const bytes = (await client.getBuffer(`${p}u:1`))!
    expect(inspect(bytes).dictionaryId?.toString(16).padStart(8, '0')).toBe(trained.dictionary.id)
    expect(bytes.length).toBeLessThan(JSON.stringify(user(1)).length * 0.5)
    // A Cache over that Redis that was never given the dictionary reads it.
    const cache = createCache({ store: createRedisStore({ client }), namespace: 'reader' })
    expect(await cache.openBytes('u1', bytes)).toStrictEqual(user(1))
    await client.del(trained.dictionary.key)
    client.disconnect()
  })
})
