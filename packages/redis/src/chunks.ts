// Values above the chunk size are stored as chunks plus a small manifest under the key itself.
//
// Manifest, all integers big-endian:
//   16 bytes  MANIFEST_MAGIC: 0xC1 then "STOWAGE-CHUNKS" then 0x01 (format version)
//    8 bytes  generation: random, names this write's chunks
//    4 bytes  chunk count
//    8 bytes  total length (uint64)
//    4 bytes  CRC-32 (zlib's) of the whole value
// Chunk i of a key is named by chunk-names.ts, in the key's own hash slot.
// A value that itself starts with MANIFEST_MAGIC is always written as chunks, so a stored value
// that starts with it is always a manifest.

import { crc32 } from 'node:zlib'

export const MANIFEST_MAGIC = new Uint8Array([0xc1, ...new TextEncoder().encode('STOWAGE-CHUNKS'), 0x01])
export const MANIFEST_SIZE = 16 + 8 + 4 + 8 + 4

export interface Manifest {
  readonly generation: string
  readonly count: number
  readonly length: number
  readonly crc: number
}

export function startsWithMagic(bytes: Uint8Array): boolean {
  if (bytes.length < MANIFEST_MAGIC.length) return false
  for (let i = 0; i < MANIFEST_MAGIC.length; i++) if (bytes[i] !== MANIFEST_MAGIC[i]) return false
  return true
}

export function newGeneration(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')
}

export function checksum(bytes: Uint8Array): number {
  return crc32(bytes)
}

export function writeManifest(manifest: Manifest): Uint8Array {
  const out = new Uint8Array(MANIFEST_SIZE)
  const view = new DataView(out.buffer)
  out.set(MANIFEST_MAGIC)
  for (let i = 0; i < 8; i++) out[16 + i] = parseInt(manifest.generation.slice(i * 2, i * 2 + 2), 16)
  view.setUint32(24, manifest.count)
  view.setBigUint64(28, BigInt(manifest.length))
  view.setUint32(36, manifest.crc)
  return out
}

/** Parses a manifest; undefined when the bytes are not a well-formed one. */
export function readManifest(bytes: Uint8Array): Manifest | undefined {
  if (bytes.length !== MANIFEST_SIZE || !startsWithMagic(bytes)) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const generation = Array.from(bytes.subarray(16, 24), (b) => b.toString(16).padStart(2, '0')).join('')
  const length = Number(view.getBigUint64(28))
  return { generation, count: view.getUint32(24), length, crc: view.getUint32(36) }
}
