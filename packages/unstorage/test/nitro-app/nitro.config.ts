// A Nitro 2 app whose cache lives in Redis through this driver; its cached function and handler
// keep Nitro's defaults (stale-while-revalidate on), under which Nitro passes no TTL at all.
import { defineNitroConfig } from 'nitropack/config'

// es2022: Stowage's code has BigInt literals, which Nitro's default target (es2019) warns of.
export default defineNitroConfig({ preset: 'node-server', compatibilityDate: '2026-01-01', esbuild: { options: { target: 'es2022' } } })
