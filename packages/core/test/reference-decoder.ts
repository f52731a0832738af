import { decode as msgpackDecode, decodeMulti as msgpackDecodeMulti, ExtensionCodec } from '@msgpack/msgpack'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { crc32, inflateRawSync } from 'node:zlib'

// The FORMAT.md §4 reference decoder, extracted from the page as interop.node.test.ts does.
export function referenceDecoder(): (envelope: Uint8Array, dictionaries?: Map<number, Uint8Array>) => { value: unknown } {
  const page = readFileSync(fileURLToPath(new URL('../FORMAT.md', import.meta.url)), 'utf8')
  const block = /```js reference-decoder\n([\s\S]*?)```/.exec(page)![1]!
  const imports = ["import { decode, decodeMulti, ExtensionCodec } from '@msgpack/msgpack'\n", "import { crc32, inflateRawSync } from 'node:zlib'\n"]
  const body = imports.reduce((code, line) => code.replace(line, ''), block).replace('export function decodeEnvelope', 'function decodeEnvelope')
  return new Function('decode', 'decodeMulti', 'ExtensionCodec', 'crc32', 'inflateRawSync', `${body}\nreturn decodeEnvelope`)(msgpackDecode, msgpackDecodeMulti, ExtensionCodec, crc32, inflateRawSync)
}
