// FORMAT.md promises that a plain MessagePack library plus a few lines decodes Stowage payloads.
// Those lines are taken from FORMAT.md itself (its `js reference-decoder` block) and run by the
// tests, so the page cannot drift from the code.
import { decode as msgpackDecode, decodeMulti as msgpackDecodeMulti, ExtensionCodec } from '@msgpack/msgpack'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { crc32, inflateRawSync } from 'node:zlib'

/** What the page's decodeEnvelope returns. */
export interface ReferenceDecoded {
  value: unknown
  schemaVersion?: number
  freshUntil?: number
  tags?: Map<string, number>
}

/**
 * The FORMAT.md §4 reference decoder.
 * @throws Error when the page has no such block, or its imports are not the ones given here.
 */
export function referenceDecoder(): (envelope: Uint8Array, dictionaries?: Map<number, Uint8Array>) => ReferenceDecoded {
  const page = readFileSync(fileURLToPath(new URL('../FORMAT.md', import.meta.url)), 'utf8')
  const block = /```js reference-decoder\n([\s\S]*?)```/.exec(page)?.[1]
  if (block === undefined) throw new Error('FORMAT.md has no reference-decoder block')
  const imports = ["import { decode, decodeMulti, ExtensionCodec } from '@msgpack/msgpack'\n", "import { crc32, inflateRawSync } from 'node:zlib'\n"]
  for (const line of imports) if (!block.includes(line)) throw new Error(`FORMAT.md's reference decoder no longer imports as the tests give: ${line.trim()}`)
  const body = imports.reduce((code, line) => code.replace(line, ''), block).replace('export function decodeEnvelope', 'function decodeEnvelope')
  return new Function('decode', 'decodeMulti', 'ExtensionCodec', 'crc32', 'inflateRawSync', `${body}\nreturn decodeEnvelope`)(msgpackDecode, msgpackDecodeMulti, ExtensionCodec, crc32, inflateRawSync)
}
