// The Lua scripts the store runs. The first two exist so that overwriting or deleting a value never
// sends the old value back (SET … GET and GETDEL did: 7 MB back for a 7 MB overwrite) while the store
// still learns, atomically, whether the old value was a chunk manifest whose chunks must go. Each
// returns the first MANIFEST_SIZE (40) bytes of the old value when it was a string, an empty string
// for a key of another type (a bundle's hash), nil when there was no key.
import { createHash } from 'node:crypto'
import { MANIFEST_SIZE } from './chunks.js'

const OLD_HEAD = `local kind = redis.call('TYPE', KEYS[1])['ok']
local head = false
if kind == 'string' then head = redis.call('GETRANGE', KEYS[1], 0, ${MANIFEST_SIZE - 1}) elseif kind ~= 'none' then head = '' end`

/** SET KEYS[1] ARGV[1] [PX ARGV[2] unless empty]; returns the old value's head (see above). */
export const SET_RETURNING_HEAD = `${OLD_HEAD}
if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return head`

/**
 * SET_RETURNING_HEAD under a fence: only while the lease KEYS[2] holds the token ARGV[3]; returns
 * 0 (never a head: those are strings or nil) when it does not, and writes nothing.
 */
export const SET_RETURNING_HEAD_FENCED = `if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
${SET_RETURNING_HEAD}`

/** DEL KEYS[1]; returns the old value's head (see above). */
export const DEL_RETURNING_HEAD = `${OLD_HEAD}
if head then redis.call('DEL', KEYS[1]) end
return head`

/**
 * PERSIST KEYS[2..] while KEYS[1] holds the chunk manifest ARGV[1]; returns 1 if it did, 0 if the
 * manifest was replaced or deleted meanwhile (its chunks then keep the TTL they have). One script,
 * so a delete or overwrite lands either before it (nothing is made persistent) or after it (and
 * then sets the chunks it made persistent to expire).
 */
export const PERSIST_IF_MANIFEST = `if redis.call('TYPE', KEYS[1])['ok'] ~= 'string' or redis.call('STRLEN', KEYS[1]) ~= ${MANIFEST_SIZE} or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
for i = 2, #KEYS do redis.call('PERSIST', KEYS[i]) end
return 1`

/**
 * The value under KEYS[1], or ARGV[1] stored there when there is none; either way the key then
 * lives at least ARGV[2] ms (PERSIST when ARGV[2] is empty): a TTL raised, never lowered. A value
 * that starts with ARGV[3] (the chunk manifest's magic) is returned with its TTL as it is: its
 * chunks are not the script's to extend. A key of another type fails with WRONGTYPE.
 */
export const ENSURE = `if redis.call('TYPE', KEYS[1])['ok'] == 'none' then
  if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
  return ARGV[1]
end
local value = redis.call('GET', KEYS[1])
if string.sub(value, 1, string.len(ARGV[3])) ~= ARGV[3] then
  if ARGV[2] == '' then redis.call('PERSIST', KEYS[1])
  else
    local left = redis.call('PTTL', KEYS[1])
    if left >= 0 and left < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  end
end
return value`

// Each script's SHA-1, computed once: hashing it again on every call cost ~1.5 µs of a ~30 µs set
// (apps/bench, set of a 1 kB value over loopback).
const digests = new Map<string, string>()

/** The SHA-1 that EVALSHA names a script by. */
export function sha1(script: string): string {
  let digest = digests.get(script)
  if (digest === undefined) digests.set(script, (digest = createHash('sha1').update(script).digest('hex')))
  return digest
}

/** Whether a Redis error says the script is not in its cache (EVALSHA then falls back to EVAL). */
export function isNoScript(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith('NOSCRIPT')
}
