// Real data sets, installed from npm data packages (pinned in the workspace catalog), never
// generated: what the codec meets outside the seed article's perfectly regular arrays.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * `@octokit/webhooks-examples` 7.6.1: the 329 example payloads of GitHub's webhook events
 * (0.9–27 kB of JSON each, 3.25 MB in all), one value each, as a cache stores them one per key.
 * API payloads: nested `user`, `repository` and `organization` objects, many URL strings.
 */
export function webhookPayloads(): unknown[] {
  const events = require('@octokit/webhooks-examples') as Array<{ examples: unknown[] }>
  return events.flatMap((event) => event.examples)
}

/** `world-countries` 5.1.0: 250 countries as one array (0.62 MB of JSON), with translations in 25 languages. */
export function worldCountries(): unknown {
  return require('world-countries') as unknown
}

/**
 * `emojibase-data` 17.0.0, `en/data.json`: 1,949 emoji as one array (0.78 MB of JSON) whose rows
 * have optional fields (8 key sets), some with nested `skins` arrays.
 */
export function emojis(): unknown {
  return require('emojibase-data/en/data.json') as unknown
}

/**
 * `@mdn/browser-compat-data` 8.1.9, its `javascript` section: nested dictionaries whose leaves are
 * `__compat` records with optional fields (1.55 MB of JSON).
 */
export function browserCompatJavaScript(): unknown {
  return (require('@mdn/browser-compat-data') as { javascript: unknown }).javascript
}

/**
 * Small queries of real data: the distinct `repository`, `sender`, `issue` and `pull_request`
 * objects of the webhook payloads that take 2–10 kB of JSON (90 of them, 2.2–6.5 kB; one holds an
 * emoji, as user content does).
 */
export function smallQueries(): unknown[] {
  const seen = new Set<string>()
  const out: unknown[] = []
  for (const payload of webhookPayloads() as Array<Record<string, unknown>>) {
    for (const field of ['repository', 'sender', 'issue', 'pull_request']) {
      const value = payload[field]
      if (typeof value !== 'object' || value === null) continue
      const json = JSON.stringify(value)
      if (json.length < 2000 || json.length > 10_000 || seen.has(json)) continue
      seen.add(json)
      out.push(value)
    }
  }
  return out
}

/**
 * The data of the persister benches, named as their tables name them: the webhook payloads, and
 * small queries (their distinct sub-objects of 2–10 kB of JSON).
 */
export function appStateSets(): Array<{ name: string; values: unknown[] }> {
  return [
    { name: 'webhook payloads (329, 0.9–27 kB)', values: webhookPayloads() },
    { name: 'small queries (90 distinct sub-objects, 2.2–6.5 kB)', values: smallQueries() },
  ]
}

/**
 * 5,000 small queries as a TanStack Query client dehydrates them, in arrays of 135 (about the
 * 512 KiB segments @stowage/persist stores): 38 values.
 */
export function persistedSegments(): unknown[] {
  const values = smallQueries()
  const queries = Array.from({ length: 5000 }, (_, i) => ({
    queryKey: ['query', i],
    queryHash: `["query",${i}]`,
    state: { data: values[i % values.length], dataUpdateCount: 1, dataUpdatedAt: 1767225600000 + i, error: null, errorUpdateCount: 0, errorUpdatedAt: 0, fetchFailureCount: 0, fetchFailureReason: null, fetchMeta: null, isInvalidated: false, status: 'success', fetchStatus: 'idle' },
  }))
  const segments: unknown[] = []
  for (let i = 0; i < queries.length; i += 135) segments.push(queries.slice(i, i + 135))
  return segments
}

/** A real data set as the codec bench measures it: one value, or many stored one by one. */
export interface RealWorkload {
  readonly name: string
  readonly values: readonly unknown[]
}

/** The real data sets of `pnpm bench`. */
export function realWorkloads(): RealWorkload[] {
  return [
    { name: 'GitHub webhooks (329 payloads)', values: webhookPayloads() },
    { name: 'world-countries', values: [worldCountries()] },
    { name: 'emojibase (optional fields)', values: [emojis()] },
    { name: 'browser-compat-data javascript', values: [browserCompatJavaScript()] },
  ]
}
