// Size budget of @stowage/core in a browser bundle: the portable entry with fflate, minified
// and gzipped, as a bundler would ship it. Fails when over budget; the figure is in README.md.
import { build } from 'esbuild'
import { gzipSync } from 'node:zlib'

const budgets = [
  ['the codec', "export { encode, decode, encodeAsync, decodeAsync, createCodec, StowageError } from './dist/index.js'", 16 * 1024],
  ['codec + Cache + memory store', "export * from './dist/index.js'", 24 * 1024],
]

let over = false
for (const [name, contents, budget] of budgets) {
  const result = await build({ stdin: { contents, resolveDir: process.cwd() }, bundle: true, minify: true, format: 'esm', platform: 'browser', write: false })
  const bytes = result.outputFiles[0].contents
  const gzipped = gzipSync(bytes, { level: 9 }).length
  console.log(`@stowage/core in a browser bundle, ${name}: ${(bytes.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped (budget ${budget / 1024} KiB)`)
  if (gzipped > budget) over = true
}
if (over) {
  console.error('over budget')
  process.exit(1)
}
