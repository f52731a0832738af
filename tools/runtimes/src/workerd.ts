import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { freePort } from '@stowage/redis-server'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'
import type { TestResult } from '../workerd/harness.js'
import { binary } from './binaries.js'

const here = dirname(fileURLToPath(import.meta.url))
const tool = join(here, '..')
const coreTests = join(tool, '..', '..', 'packages', 'core', 'test')

/** @stowage/core's runtime-neutral test files: the same list the vitest runs take. */
export function coreTestFiles(): string[] {
  return readdirSync(coreTests).filter((f) => f.endsWith('.test.ts') && !f.endsWith('.node.test.ts')).sort()
}

// `vitest` becomes the harness; the test files' `../src/index.js` becomes the BUILT package as a
// Worker gets it (conditions workerd, worker, browser: dist/index.js with the portable platform);
// each test file first tells the harness its name.
const matrixPlugin: Plugin = {
  name: 'stowage-matrix',
  setup(b) {
    b.onResolve({ filter: /^vitest$/ }, () => ({ path: join(tool, 'workerd', 'harness.ts') }))
    b.onResolve({ filter: /^\.\.\/src\/index\.js$/ }, async (args) => {
      if (args.importer.startsWith(coreTests)) return b.resolve('@stowage/core', { kind: args.kind, resolveDir: tool })
      return undefined
    })
    // @stowage/core says "sideEffects": false, which would let esbuild drop the bare test imports.
    b.onResolve({ filter: /\.test\.ts$/ }, (args) => ({ path: args.path, sideEffects: true }))
    b.onLoad({ filter: /\.test\.ts$/ }, (args) => ({
      contents: `import { setFile as __setFile } from 'vitest'\n__setFile(${JSON.stringify(basename(args.path))})\n${readFileSync(args.path, 'utf8')}`,
      loader: 'ts',
    }))
  },
}

/** Bundles the Worker with every runtime-neutral core test file into workerd/dist/worker.js. */
export async function bundleWorker(files: string[]): Promise<void> {
  const entry = [...files.map((f) => `import ${JSON.stringify(join(coreTests, f))}`), `export { default } from ${JSON.stringify(join(tool, 'workerd', 'worker.ts'))}`].join('\n')
  await build({
    stdin: { contents: entry, resolveDir: tool, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    outfile: join(tool, 'workerd', 'dist', 'worker.js'),
    plugins: [matrixPlugin],
    // No tsconfig.json: packages/core's maps `#platform` to its source portable.ts for the type
    // checker, and esbuild would follow it from dist/index.js too; the Worker must get the dist files.
    tsconfigRaw: {},
    logLevel: 'warning',
  })
}

/** What one workerd run gave. */
export interface WorkerdRun {
  readonly version: string
  readonly userAgent: string
  readonly results: TestResult[]
}

/**
 * Bundles the Worker, starts workerd on a free port, asks for the results and stops it.
 * @returns The workerd version, the Worker's navigator.userAgent and one result per test.
 * @throws {Error} When workerd exits early or does not answer within two minutes.
 */
export async function runWorkerd(): Promise<WorkerdRun> {
  await bundleWorker(coreTestFiles())
  const bin = binary('workerd')
  const version = await new Promise<string>((resolve) => {
    const p = spawn(bin, ['--version'])
    let out = ''
    p.stdout.on('data', (d) => (out += d))
    p.on('close', () => resolve(out.trim().replace(/^workerd /, '')))
  })
  const port = await freePort()
  const child = spawn(bin, ['serve', join(tool, 'workerd', 'config.capnp'), '--socket-addr', `http=127.0.0.1:${port}`], { stdio: ['ignore', 'inherit', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`workerd exited (${code}): ${stderr.trim()}`))))
  try {
    const deadline = Date.now() + 120_000
    for (;;) {
      try {
        const response = await Promise.race([fetch(`http://127.0.0.1:${port}/`), exited])
        const body = (await response.json()) as Omit<WorkerdRun, 'version'>
        return { version, ...body }
      } catch (e) {
        if (Date.now() > deadline || child.exitCode !== null) throw e
        await new Promise((r) => setTimeout(r, 200))
      }
    }
  } finally {
    child.kill()
  }
}
