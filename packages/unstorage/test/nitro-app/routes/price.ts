import { defineCachedFunction } from 'nitropack/runtime'
import { defineEventHandler, getQuery, type H3Event } from 'h3'

// Nitro's defaults: swr on, maxAge 1 s.
const price = defineCachedFunction(async (id: string) => ({ id, cents: id.length * 100, at: new Date().toISOString() }), { name: 'price', getKey: (id: string) => id })

export default defineEventHandler((event: H3Event) => price(String(getQuery(event).id ?? 'none')))
