import type { Redis } from 'ioredis'
import { PREFIX_BYTES } from './classify.js'

// One read-only script call per batch instead of TYPE, MEMORY USAGE, STRLEN and GETRANGE per key:
// through ioredis each command costs a Command object, a promise and a reply of its own, which
// made the client, not Redis, the bottleneck (and kept ~170 MB resident over 200k keys). The script
// runs about a millisecond per 1,000 keys on the server, like a SCAN COUNT 1000 does, and the keys
// it reads are declared in KEYS. A key gone since SCAN reads as type "none".
const PROBE = `
local out = {}
for i, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key)['ok']
  out[#out + 1] = kind
  out[#out + 1] = redis.call('MEMORY', 'USAGE', key) or 0
  if kind == 'string' then
    out[#out + 1] = redis.call('STRLEN', key)
    out[#out + 1] = redis.call('GETRANGE', key, 0, ${PREFIX_BYTES - 1})
  else
    out[#out + 1] = 0
    out[#out + 1] = ''
  end
end
return out
`

/** Per key: its type, MEMORY USAGE, STRLEN (0 for other types) and first bytes. */
export interface Probe {
  readonly type: string
  readonly memory: number
  readonly length: number
  readonly prefix: Buffer
}

type ProbeClient = Redis & { stowageProbeBuffer(numberOfKeys: number, ...keys: Buffer[]): Promise<Array<Buffer | number>> }

/**
 * Defines the probe script on the client (sent with EVALSHA, loaded on NOSCRIPT).
 * @param client - the connection.
 * @returns a function that probes a batch of keys in one call.
 */
export function defineProbe(client: Redis): (keys: Buffer[]) => Promise<Probe[]> {
  client.defineCommand('stowageProbe', { lua: PROBE })
  const probing = client as ProbeClient
  return async (keys) => {
    const flat = await probing.stowageProbeBuffer(keys.length, ...keys)
    const out: Probe[] = new Array(keys.length)
    for (let i = 0; i < keys.length; i++) {
      out[i] = { type: String(flat[4 * i]), memory: Number(flat[4 * i + 1]), length: Number(flat[4 * i + 2]), prefix: flat[4 * i + 3] as Buffer }
    }
    return out
  }
}
