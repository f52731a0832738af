// Credentials never reach the terminal or a report: ioredis logs in with the userinfo of a URL and
// with its `?password=` and `?username=` parameters alike, so every one of them is hidden.
import { describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, uniquePrefix } from './run-cli.js'

describe('credentials in the Redis URL', () => {
  it('hides ?password= and ?username= in error lines (a login refused)', async () => {
    const { host } = new URL(inject('redisUrl'))
    const { code, stdout, stderr } = await runCli(['scan', `redis://${host}/0?username=query-user&password=query-secret&db=0`])
    expect(code).toBe(3)
    expect(stderr).toContain(`cannot reach Redis at redis://${host}/0?username=***&password=***&db=0: `)
    expect(stdout + stderr).not.toMatch(/query-secret|query-user/)
  })

  it('hides them in reports, text and JSON, of a run that logged in with them', async () => {
    const { host } = new URL(inject('redisUrl'))
    const client = redisClient()
    const p = uniquePrefix('redact')
    await client.set(`${p}1`, JSON.stringify({ a: 1 }))
    const user = p.replace(/:/g, '-').slice(0, -1)
    await client.call('ACL', 'SETUSER', user, 'on', '>query-secret', '~*', '+@all')
    try {
      const url = `redis://${host}?username=${user}&password=query-secret`
      const json = await runCli(['scan', url, '--match', `${p}*`, '--json'])
      expect([json.code, json.stderr]).toStrictEqual([0, ''])
      expect(JSON.parse(json.stdout).server).toBe(`redis://${host}?username=***&password=***`)
      const text = await runCli(['scan', url, '--match', `${p}*`])
      expect(text.stdout).toContain(`stowage scan redis://${host}?username=***&password=***`)
      const inspect = await runCli(['inspect', url, `${p}missing`])
      expect(inspect.stderr).toContain(`does not exist at redis://${host}?username=***&password=***`)
      for (const run of [json, text, inspect]) expect(run.stdout + run.stderr).not.toMatch(new RegExp(`query-secret|${user}`))
    } finally {
      await client.call('ACL', 'DELUSER', user)
    }
  })

  it('hides the user and password of the userinfo, and any credential of a URL that is not redis://', async () => {
    const { host } = new URL(inject('redisUrl'))
    const refused = await runCli(['scan', `redis://someone:info-secret@${host}`])
    expect(refused.stderr).toContain(`cannot reach Redis at redis://***:***@${host}: `)
    const mistyped = await runCli(['scan', `http://someone:info-secret@${host}?password=query-secret`])
    expect(mistyped.stderr).toContain(`not a Redis URL: http://***@${host}?***`)
    const bare = await runCli(['scan', `someone:info-secret@${host}`])
    expect(bare.stderr).toContain(`not a Redis URL: ***@${host}`)
    for (const run of [refused, mistyped, bare]) expect(run.stdout + run.stderr).not.toMatch(/info-secret|query-secret|someone/)
  })
})
