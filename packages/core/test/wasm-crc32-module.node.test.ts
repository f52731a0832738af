import { readFileSync } from 'node:fs'
import wabt from 'wabt'
import { expect, it } from 'vitest'
import { WASM_CRC32_MODULE } from '../src/codec/platform/wasm-crc32.js'

// The portable build embeds the assembled module: it must be what crc32.wat, its source, assembles to.
it('embeds what crc32.wat assembles to', async () => {
  const source = readFileSync(new URL('../src/codec/platform/crc32.wat', import.meta.url), 'utf8')
  const assembled = (await wabt()).parseWat('crc32.wat', source).toBinary({}).buffer
  expect(Buffer.from(assembled).toString('base64')).toBe(WASM_CRC32_MODULE)
})
