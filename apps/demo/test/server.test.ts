// The demo server as other sites and other runs see it, without a browser: plain HTTP requests
// with the headers a cross-site page or a DNS-rebinding name would make a browser send.
import { createCodec } from '@stowage/core'
import { Redis } from 'ioredis'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chooseRedis, type RedisChoice } from '../src/redis.js'
import { startDemo, type Demo } from '../src/server.js'

let redis: RedisChoice
beforeAll(async () => {
  redis = await chooseRedis()
})
afterAll(async () => {
  await redis?.stop()
})

// node:http, because fetch will not send a Host header of our choosing.
function send(url: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

const revision = async (demo: Demo, name: string) => ((await (await fetch(`${demo.url}/api/stats`)).json()) as { datasets: Record<string, { revision: number }> }).datasets[name]!.revision

describe('the demo server and other sites', () => {
  let demo: Demo
  let host: string
  beforeAll(async () => {
    demo = await startDemo({ namespace: `demo-guard-${Math.random().toString(36).slice(2)}`, port: 0 })
    host = new URL(demo.url).host
  })
  afterAll(async () => {
    await demo?.close()
  })

  it('answers only to its own Host: a DNS-rebinding name gets 421 and none of its data', async () => {
    const port = new URL(demo.url).port
    for (const path of ['/api/stats', '/api/data/session', '/api/countries/FRA', '/']) {
      const rebound = await send(demo.url, path, { headers: { Host: `rebind.example:${port}` } })
      expect([path, rebound.status]).toStrictEqual([path, 421])
      expect(rebound.body).not.toContain('revision')
    }
    expect((await send(demo.url, '/api/stats', { headers: { Host: `127.0.0.1:${port}` } })).status).toBe(200)
    expect((await send(demo.url, '/api/stats', { headers: { Host: `localhost:${port}` } })).status).toBe(200)
    expect((await send(demo.url, '/api/stats', { headers: { Host: `127.0.0.1:${Number(port) + 1}` } })).status).toBe(421)
  })

  it('refuses a state change from another site (text/plain, no preflight) or from no page at all, and takes its own page’s', async () => {
    const post = (headers: Record<string, string>) => send(demo.url, '/api/invalidate/post', { method: 'POST', headers: { 'Content-Type': 'text/plain', ...headers } })
    const refused: Array<Record<string, string>> = [
      { Origin: 'http://attacker.example' },
      { Origin: 'http://attacker.example', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: `http://${host}`, 'Sec-Fetch-Site': 'cross-site' },
      { Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-site' },
      { Origin: 'null' },
      {},
    ]
    for (const headers of refused) {
      expect([headers, (await post(headers)).status]).toStrictEqual([headers, 403])
    }
    expect(await revision(demo, 'post')).toBe(1)
    expect((await post({ Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(204)
    expect((await post({ Origin: `http://${host}` })).status).toBe(204) // a browser without Sec-Fetch-*
    expect(await revision(demo, 'post')).toBe(3)
  })
})

describe('the demo server and names it does not serve', () => {
  it('answers 404 for an object name that is a property of every object (constructor, toString), never 500', async () => {
    const demo = await startDemo({ namespace: `demo-names-${Math.random().toString(36).slice(2)}`, port: 0 })
    try {
      for (const name of ['constructor', 'toString', 'hasOwnProperty', 'nothing']) {
        expect([name, (await fetch(`${demo.url}/api/data/${name}`)).status]).toStrictEqual([name, 404])
        expect([name, (await fetch(`${demo.url}/api/invalidate/${name}`, { method: 'POST', headers: { Origin: demo.url } })).status]).toStrictEqual([name, 404])
      }
    } finally {
      await demo.close()
    }
  })
})

describe('the bytes page and the countries app on one server', () => {
  it('keep their own values: the app’s country list is never the bytes page’s countries object, whichever is asked first', async () => {
    for (const order of [['/api/data/countries', '/api/countries'], ['/api/countries', '/api/data/countries']]) {
      const demo = await startDemo({ namespace: `demo-keys-${Math.random().toString(36).slice(2)}`, port: 0 })
      try {
        const got: Record<string, unknown> = {}
        for (const path of order) got[path] = createCodec().decode(new Uint8Array(await (await fetch(`${demo.url}${path}`, { headers: { Accept: 'application/vnd.stowage' } })).arrayBuffer()))
        const list = got['/api/countries'] as Array<{ name: string }>
        expect(Array.isArray(list)).toBe(true)
        expect(list).toHaveLength(250)
        expect(typeof list[0]!.name).toBe('string')
        expect(got['/api/data/countries']).toMatchObject({ revision: 1 })
        expect((got['/api/data/countries'] as { data: unknown[] }).data).toHaveLength(250)
      } finally {
        await demo.close()
      }
    }
  })
})

describe('the demo server and other runs on the same Redis', () => {
  it('deletes on stop only the keys this run wrote: not keys it only read, nor JSON copies it never made', async () => {
    expect(redis.url, 'needs a Redis').toBeDefined()
    const namespace = `demo-runs-${Math.random().toString(36).slice(2)}`
    const client = new Redis(redis.url!)
    const first = await startDemo({ redisUrl: redis.url, namespace, port: 0 })
    const second = await startDemo({ redisUrl: redis.url, namespace, port: 0 })
    try {
      // The first run writes these; the second only hits them.
      for (const path of ['/api/countries/FRA', '/api/countries', '/api/data/session']) await (await fetch(`${first.url}${path}`)).arrayBuffer()
      for (const path of ['/api/countries/FRA', '/api/countries', '/api/data/session', '/api/countries/DEU']) await (await fetch(`${second.url}${path}`)).arrayBuffer()
      await client.set(`${namespace}-json:country:FRA`, 'someone else’s')
      const theirs = [`${namespace}:app%3Acountry%3AFRA`, `${namespace}:app%3Acountries`, `${namespace}:session`, `${namespace}-json:session`, `${namespace}-json:country:FRA`]
      expect(await client.exists(...theirs, `${namespace}:app%3Acountry%3ADEU`)).toBe(6)
      await second.close()
      expect(await client.exists(`${namespace}:app%3Acountry%3ADEU`)).toBe(0) // the one key the second run wrote
      expect(await client.exists(...theirs)).toBe(5)
      await first.close()
      expect(await client.exists(`${namespace}:app%3Acountry%3AFRA`, `${namespace}:app%3Acountries`, `${namespace}:session`, `${namespace}-json:session`)).toBe(0)
      expect(await client.get(`${namespace}-json:country:FRA`)).toBe('someone else’s')
    } finally {
      await Promise.all([first.close(), second.close()]).catch(() => {})
      await client.del(`${namespace}-json:country:FRA`)
      await client.quit()
    }
  })
})
