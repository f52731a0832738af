import { failureJson } from '../errors/report-failure.js'
import { toJsonData } from '../format/tagged-json.js'
import { quote, safeText } from '../format/safe-text.js'
import { formatBytes, formatCount, formatDuration, formatRatio } from '../format/units.js'
import type { EnvelopeSource } from './read-envelope.js'
import { displayValue } from './display-value.js'
import type { Inspection } from './inspect-bytes.js'

const COMPRESSION_NAMES = { none: 'none', 'deflate-raw': 'raw deflate', 'deflate-raw-dictionary': 'raw deflate with a preset dictionary' } as const

/**
 * The inspection as JSON data (`inspect --json`); the value in tagged JSON (see tagged-json.ts),
 * a BigInt of more than 1,024 bits by its size and hex digits.
 * @param source - where the bytes came from.
 * @param found - what inspectBytes found.
 * @returns an object for JSON.stringify.
 */
export function inspectionJson(source: EnvelopeSource, found: Inspection): Record<string, unknown> {
  const h = found.header
  return {
    source,
    header: h ? {
      formatVersion: h.formatVersion,
      compression: h.compression,
      dictionaryId: h.dictionaryId ?? null,
      schemaVersion: h.schemaVersion ?? null,
      freshUntil: h.freshUntil ?? null,
      tags: h.tags ? Object.fromEntries(h.tags) : null,
      payloadLength: h.payloadLength,
      byteLength: h.byteLength,
    } : null,
    crc: found.crc,
    jsonBytes: found.jsonBytes ?? null,
    ratioToJson: found.jsonBytes && h ? h.byteLength / found.jsonBytes : null,
    ...(found.decoded ? { value: toJsonData(found.value, true, '$', 'partial') } : {}),
    error: found.error ? failureJson(found.error) : null,
  }
}

/**
 * The inspection for people: header, Redis facts, ratio to JSON and the value with its types;
 * stored data (key, tags, value, messages) with control and format characters escaped.
 * @param source - where the bytes came from.
 * @param found - what inspectBytes found.
 * @param colors - color the value (on a terminal).
 * @returns the text, ending in a newline.
 */
export function inspectionText(source: EnvelopeSource, found: Inspection, colors: boolean): string {
  const lines: Array<[string, string]> = []
  lines.push(['source', source.kind === 'redis' ? `${safeText(source.location)} key ${quote(source.key ?? '')}${source.field === undefined ? '' : ` field ${quote(source.field)}`}` : source.kind === 'stdin' ? 'standard input' : safeText(source.location)])
  if (source.redis) {
    const r = source.redis
    lines.push(['TTL', r.ttlMs === null ? 'none (the key does not expire)' : `${formatCount(r.ttlMs)} ms (${formatDuration(r.ttlMs)}, expires ${new Date(Date.now() + r.ttlMs).toISOString()})`])
    lines.push(['memory usage', r.memoryUsage === null ? '-' : `${formatCount(r.memoryUsage)} B (Redis MEMORY USAGE${r.chunked ? ', of the manifest alone' : ''})`])
    if (r.chunked) lines.push(['stored as', `${formatCount(r.chunked.chunks)} chunks plus a 40-byte manifest (FORMAT.md §6), ${formatCount(r.chunked.totalLength)} B in all; read through @stowage/redis`])
  }
  const h = found.header
  if (h) {
    lines.push(['format', `Stowage envelope, format version ${h.formatVersion}`])
    lines.push(['compression', COMPRESSION_NAMES[h.compression]])
    if (h.dictionaryId !== undefined) {
      const id = h.dictionaryId.toString(16).padStart(8, '0')
      const held = source.redis?.dictionary
      const where = held === undefined ? '' : held.inStore === 'yes' ? ` (in this Redis under #dict:${id}; decoded with it)` : held.inStore === 'no' ? ` (not in this Redis: no key #dict:${id}; a Cache cannot read this value until the dictionary is stored, see stowage train)` : ` (#dict:${id} in this Redis is refused: ${safeText(held.reason ?? '')})`
      lines.push(['dictionary id', `0x${id}${where}`])
    }
    lines.push(['schema version', h.schemaVersion === undefined ? 'none (0)' : String(h.schemaVersion)])
    lines.push(['fresh until', h.freshUntil === undefined ? 'none' : `${new Date(h.freshUntil).toISOString()} (${h.freshUntil})`])
    lines.push(['tags', h.tags ? [...h.tags].map(([tag, gen]) => `${safeText(tag)}@${gen}`).join(', ') : 'none'])
    lines.push(['envelope', `${formatCount(h.byteLength)} B`])
    lines.push(['payload', `${formatCount(h.payloadLength)} B of MessagePack${h.compression === 'none' ? '' : ` (inflated; stored ${formatRatio(h.byteLength / Math.max(1, h.payloadLength))}×)`}`])
    lines.push(['CRC-32', found.crc === 'ok' ? 'ok' : found.crc === 'mismatch' ? 'MISMATCH: the bytes were damaged, cut short or followed by others' : 'not checked'])
  }
  if (found.jsonBytes !== undefined && h) {
    lines.push(['as JSON', `${formatCount(found.jsonBytes)} B: the envelope is ${formatRatio(h.byteLength / Math.max(1, found.jsonBytes))}× the equivalent JSON (${formatBytes(found.jsonBytes)} → ${formatBytes(h.byteLength)})`])
  }
  if (found.error) lines.push(['error', `${found.error.code}: ${safeText(found.error.message)}`])
  const width = Math.max(...lines.map(([k]) => k.length))
  let text = lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n'
  if (found.decoded) {
    text += `\nvalue:\n${displayValue(found.value, colors)}\n`
  }
  return text
}
