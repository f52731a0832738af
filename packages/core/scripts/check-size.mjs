// Size budget of @stowage/core in a browser bundle: the portable entry with fflate, minified
// and gzipped, as a bundler would ship it. Fails when over budget; the figure is in README.md.
import { build } from 'esbuild'
import { gzipSync } from 'node:zlib'

const BUDGET = 16 * 1024

const result = await build({
  stdin: { contents: "export { encode, decode, encodeAsync, decodeAsync, createCodec, StowageError } from './dist/index.js'", resolveDir: process.cwd() },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  write: false,
})
const bytes = result.outputFiles[0].contents
const gzipped = gzipSync(bytes, { level: 9 }).length
console.log(`@stowage/core browser bundle: ${(bytes.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped (budget ${BUDGET / 1024} KiB)`)
if (gzipped > BUDGET) {
  console.error('over budget')
  process.exit(1)
}
