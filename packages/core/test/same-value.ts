// A strict structural equality for round-trip tests: same prototypes, same own keys in the same
// order, Object.is for primitives (so -0 and NaN count), Maps and Sets in insertion order.
// (vitest's toStrictEqual reads `value.constructor`, which an own "constructor" key fools.)
export function sameValue(a: unknown, b: unknown, path = '$'): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? undefined : `${path}: ${describe(a)} !== ${describe(b)}`
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: different prototypes`
  if (a instanceof Date) return Object.is(a.getTime(), (b as Date).getTime()) ? undefined : `${path}: dates differ`
  if (a instanceof RegExp) return String(a) === String(b) ? undefined : `${path}: regexps differ`
  if (a instanceof ArrayBuffer) return sameValue(new Uint8Array(a), new Uint8Array(b as ArrayBuffer), path)
  if (ArrayBuffer.isView(a)) {
    const x = a as unknown as ArrayLike<unknown>
    const y = b as unknown as ArrayLike<unknown>
    if (a instanceof DataView) return sameValue(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array((b as DataView).buffer, (b as DataView).byteOffset, (b as DataView).byteLength), path)
    if (x.length !== y.length) return `${path}: lengths ${x.length} vs ${y.length}`
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return `${path}[${i}]: ${describe(x[i])} !== ${describe(y[i])}`
    return undefined
  }
  if (a instanceof Map || a instanceof Set) {
    const x = [...(a as Map<unknown, unknown>).entries()]
    const y = [...(b as Map<unknown, unknown>).entries()]
    return sameValue(x, y, path)
  }
  const keysA = Reflect.ownKeys(a)
  const keysB = Reflect.ownKeys(b)
  if (keysA.length !== keysB.length || keysA.some((k, i) => k !== keysB[i])) {
    return `${path}: keys [${keysA.map(String)}] vs [${keysB.map(String)}]`
  }
  for (const k of keysA) {
    const da = Object.getOwnPropertyDescriptor(a, k) as PropertyDescriptor
    const db = Object.getOwnPropertyDescriptor(b, k) as PropertyDescriptor
    if (da.enumerable !== db.enumerable) return `${path}.${String(k)}: enumerability differs`
    const diff = sameValue(da.value, db.value, `${path}.${String(k)}`)
    if (diff) return diff
  }
  return undefined
}

function describe(v: unknown): string {
  return typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : typeof v === 'string' ? JSON.stringify(v) : String(v)
}
