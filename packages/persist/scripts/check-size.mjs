// What @stowage/persist's whole-client TanStack persister adds to a browser app, with what it
// brings along (@stowage/core, @stowage/idb, idb, fflate), minified and gzipped as a bundler would
// ship it; TanStack's own packages are left out (the app has them either way). Beside it, what the
// JSON path adds: idb-keyval with TanStack's createAsyncStoragePersister. Issue 18 asks for at
// most 20 KiB; this fails only past the regression budget below, and says whether that target is met.
import { build } from 'esbuild'
import { gzipSync } from 'node:zlib'

const TARGET = 20 * 1024 // issue 18
const BUDGET = 41 * 1024 // regressions: fail past this (30.0 KiB measured on 2026-11-24; 30.9 KiB once the portable codec found where deflate streams end, issue 21; 31.3 KiB once decode named bytes that became text, issue 25; 32.2 KiB with the restore's inflate worker, issue 18; 32.8 KiB once the decoder could read RECORDS into kept columns, issue 25; 33.0 KiB once a restore inflated segments ahead, issue 18; 34.1 KiB with format 4's text table, issue 18; 34.8 KiB with the WebAssembly CRC-32, which checks a page's first envelopes at full speed, issue 18; 34.9 KiB once the compression worker reused the buffers it was sent, issue 18; 35.2 KiB with the fixes of a review of 2026-11-28: the Cache deleting again what it wrote after another tab's clear began, the codec reading every form FORMAT.md allows; 35.4 KiB with the decoder's one-pass DELTA and whole-table RECORDS builders, issue 25; 35.5 KiB once the CRC-32 module read sixteen bytes a step, issue 18; 36.0 KiB with the shape book keyed by bytes and string tables read in pieces, issue 18; 36.5 KiB with shape markers read from the book, payload copies kept, and segments sized by the time their encode takes, issue 18; 36.7 KiB once the asks of one task went to the compression worker in one message, issue 18; 37.1 KiB once the codec refused options it does not know and values nested deeper than the runtime's stack can decode; 37.6 KiB once saves and removals took turns under a Web Lock and a sign-out could no longer be undone by a save, a restore or another tab in flight; 38.0 KiB once other tabs stopped saving for good after a removal and the per-query persister dropped the writes of fetches begun before one; 38.1 KiB once a manifest named the removal its page knew; 38.2 KiB once a save checked for a removal before its manifest; 38.5 KiB once the persisters, the idb store and the codec refused options they do not know; 38.9 KiB once removals told the open tabs at once (a channel per persister, closed once it is collected; where there is IndexedDB only), restores running there handed nothing over and the per-query persister deleted what it wrote since a removal it heard of began; 39.6 KiB once @stowage/idb asked for 128 reads a task at most and handed its newly opened database to the calls that waited, 128 keys' worth a task, issue 18; 40.0 KiB once the decoder could build values frozen and IndexedDB stores read several keys with their TTLs in one transaction, issue 18)
const external = ['@tanstack/query-core', '@tanstack/query-persist-client-core']

async function size(contents) {
  const result = await build({ stdin: { contents, resolveDir: process.cwd() }, bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, external })
  return gzipSync(result.outputFiles[0].contents, { level: 9 }).length
}

const stowage = await size("export { createStowageClientPersister } from './dist/tanstack-query.js'")
const json = await size("export { createStore, get, set, del } from 'idb-keyval'\nexport { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister'")
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
console.log(`@stowage/persist (whole-client persister) + @stowage/idb + @stowage/core in a browser bundle: ${kib(stowage)} gzipped (issue 18's target ${kib(TARGET)}: ${stowage <= TARGET ? 'met' : 'missed'}; budget ${kib(BUDGET)}); idb-keyval + createAsyncStoragePersister: ${kib(json)}`)
if (stowage > BUDGET) {
  console.error('over budget')
  process.exit(1)
}
