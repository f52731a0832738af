// A page's main thread under V8's sampling profiler (the DevTools protocol's Profiler domain, as
// Playwright's CDP sessions give it): one profiled call, and its samples split by kind of work.
import type { Page } from 'playwright'

interface ProfileNode {
  id: number
  parent?: number
  children?: number[]
  callFrame: { functionName: string; url: string }
}

/** What the profiler returns (the fields read here). */
export interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/**
 * Milliseconds of one profiled call by kind of work: `busy` (every sample but idle), of which `gc`,
 * `v8` (what the profiler names "(program)" and the like: V8's parser, compilers and runtime
 * outside any function), `bundle` (functions of the page's script, `scriptSuffix`) and `native`
 * (the browser's and V8's built-in functions); `self <name>` per function of the bundle, and
 * `total <name>` with what it called.
 */
export type ProfileSplit = Map<string, number>

/**
 * Runs `call` with the profiler on (sampling every `intervalUs`), and returns its result.
 * @returns the result and the profile.
 */
export async function profiled<T>(page: Page, call: () => Promise<T>, intervalUs: number): Promise<{ result: T; profile: CpuProfile }> {
  const cdp = await page.context().newCDPSession(page)
  try {
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: intervalUs })
    await cdp.send('Profiler.start')
    const result = await call()
    const { profile } = await cdp.send('Profiler.stop')
    return { result, profile: profile as unknown as CpuProfile }
  } finally {
    await cdp.detach()
  }
}

/**
 * Splits a profile's samples by kind of work; see {@link ProfileSplit}.
 * @param scriptSuffix - how the page's own script's URL ends (`/page.js`).
 */
export function splitProfile(profile: CpuProfile, scriptSuffix: string): ProfileSplit {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const out: ProfileSplit = new Map()
  const add = (k: string, ms: number) => out.set(k, (out.get(k) ?? 0) + ms)
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i] as number) as ProfileNode
    const { functionName, url } = node.callFrame
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    if (functionName === '(idle)') continue
    add('busy', ms)
    if (functionName === '(garbage collector)') add('gc', ms)
    else if (functionName.startsWith('(')) add('v8', ms)
    else if (url.endsWith(scriptSuffix)) add('bundle', ms)
    else add('native', ms)
    if (url.endsWith(scriptSuffix)) add(`self ${functionName || '(anonymous)'}`, ms)
    // Each function of the bundle on the sample's stack, once.
    const seen = new Set<string>()
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = (byId.get(id) as ProfileNode).callFrame
      const name = frame.functionName || '(anonymous)'
      if (!frame.url.endsWith(scriptSuffix) || seen.has(name)) continue
      seen.add(name)
      add(`total ${name}`, ms)
    }
  }
  return out
}

/** The mean of `part` over `splits` (0 where a split lacks it). */
export function meanOf(splits: readonly ProfileSplit[], part: string): number {
  return splits.reduce((n, s) => n + (s.get(part) ?? 0), 0) / splits.length
}

/** The `count` functions with the most `kind` time (`self` or `total`) over `splits`, as "`name` ms" text. */
export function topFunctions(splits: readonly ProfileSplit[], kind: 'self' | 'total', count: number): string {
  const names = new Set(splits.flatMap((s) => [...s.keys()].filter((k) => k.startsWith(`${kind} `)).map((k) => k.slice(kind.length + 1))))
  return [...names]
    .map((name) => [name, meanOf(splits, `${kind} ${name}`)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => `\`${name}\` ${ms.toFixed(1)}`)
    .join(', ')
}
