// Map, Set and RegExp: extensions whose data is itself MessagePack (a value of plain types), so
// their write is "turn into data" and their read is "check the data, rebuild".
import { corrupt } from '../../errors/make.js'

/** MAP data: `[keys, values]`. */
export function mapToData(map: Map<unknown, unknown>): [unknown[], unknown[]] {
  return [[...map.keys()], [...map.values()]]
}

/** @throws {StowageError} CORRUPT unless `data` is two arrays of equal length. */
export function mapFromData(data: unknown): Map<unknown, unknown> {
  const [keys, values] = pairOf(data)
  const map = new Map<unknown, unknown>()
  for (let i = 0; i < keys.length; i++) map.set(keys[i], values[i])
  return map
}

/** @throws {StowageError} CORRUPT unless `data` is an array. */
export function setFromData(data: unknown): Set<unknown> {
  if (!Array.isArray(data)) throw corrupt('bad set extension')
  return new Set(data)
}

/** REGEXP data: `[source, flags]`. */
export function regexpToData(re: RegExp): [string, string] {
  return [re.source, re.flags]
}

/** @throws {StowageError} CORRUPT for anything but two strings that make a valid RegExp. */
export function regexpFromData(data: unknown): RegExp {
  if (!Array.isArray(data) || data.length !== 2 || typeof data[0] !== 'string' || typeof data[1] !== 'string') {
    throw corrupt('bad regexp extension')
  }
  try {
    return new RegExp(data[0], data[1])
  } catch (e) {
    throw corrupt('bad regexp extension', e)
  }
}

/** Checks `[keys, values]`: two arrays of equal length (MAP and DICT). @throws {StowageError} CORRUPT. */
export function pairOf(data: unknown): [unknown[], unknown[]] {
  if (!Array.isArray(data) || data.length !== 2) throw corrupt('expected a [keys, values] pair')
  const [keys, values] = data as [unknown, unknown]
  if (!Array.isArray(keys) || !Array.isArray(values) || keys.length !== values.length) throw corrupt('keys and values do not match')
  return [keys, values]
}
