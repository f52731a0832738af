/** The runtime this code runs in, as the matrix names it: `node 22`, `bun`, `deno`, `workerd`. */
export function runtimeName(): string {
  const g = globalThis as { Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string }; process?: { versions?: { node?: string } } }
  if (g.Bun !== undefined) return 'bun'
  if (g.Deno !== undefined) return 'deno'
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd'
  const node = g.process?.versions?.node
  return node === undefined ? 'unknown' : `node ${node.split('.')[0]}`
}
