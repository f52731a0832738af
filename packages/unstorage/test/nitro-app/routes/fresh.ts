import { defineCachedFunction } from 'nitropack/runtime'
import { defineEventHandler } from 'h3'

// swr off with a maxAge: the one case where Nitro 2 passes a TTL ({ ttl: maxAge }, in seconds).
const fresh = defineCachedFunction(async () => ({ fresh: true }), { name: 'fresh', swr: false, maxAge: 30 })

export default defineEventHandler(() => fresh())
