import { readFileSync } from 'node:fs'
import { join } from 'node:path'

type Target = string | { [condition: string]: Target }

// The conditions each runtime resolves a package's ESM "imports" with, as each resolves the built
// package's `#platform` (checked by hand: Node and Bun pick platform-node.js, Deno picks "deno").
const conditions: Record<string, readonly string[]> = {
  bun: ['bun', 'node', 'import', 'default'],
  deno: ['deno', 'node', 'import', 'default'],
  node: ['node', 'import', 'default'],
}

/**
 * The source file that `#platform` stands for on the runtime running this code, read from
 * @stowage/core's package.json "imports" map: the tests under a runtime use the platform file that
 * runtime's users get from the built package.
 * @param core - The directory of packages/core.
 * @returns The absolute path of `src/codec/platform/<name>.ts`.
 */
export function platformSource(core: string): string {
  const runtime = 'Bun' in globalThis ? 'bun' : 'Deno' in globalThis ? 'deno' : 'node'
  const active = conditions[runtime] as readonly string[]
  let target: Target = JSON.parse(readFileSync(join(core, 'package.json'), 'utf8')).imports['#platform']
  while (typeof target !== 'string') {
    const map: { [condition: string]: Target } = target
    const key = Object.keys(map).find((condition) => active.includes(condition))
    if (key === undefined) throw new Error(`no #platform target for ${runtime}`)
    target = map[key] as Target
  }
  const name = /platform-(\w+)\.js$/.exec(target)?.[1]
  if (name === undefined) throw new Error(`unexpected #platform target ${target}`)
  return join(core, 'src', 'codec', 'platform', `${name}.ts`)
}
