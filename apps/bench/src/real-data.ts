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
