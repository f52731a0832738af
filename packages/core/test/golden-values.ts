// The values behind the golden vectors (golden-vectors.ts, and golden-vectors-v1.ts for the names
// format version 1 had). Never change a value here: the bytes are the format.
export const goldenValues: Record<string, () => unknown> = {
  'small map': () => ({ a: 1, b: 'two', c: [true, false, null] }),
  numbers: () => [0, -1, 255, -129, 65536, 2 ** 40, -(2 ** 40), 0.5, 1.1, -0, Number.NaN, Infinity],
  'undefined and bigint': () => [undefined, 10n, -(2n ** 70n)],
  dates: () => [new Date(0), new Date(1700000000123), new Date(-1), new Date(Number.NaN)],
  'map and set': () => new Map<unknown, unknown>([[1, 'one'], ['s', new Set([1, 2])]]),
  'binary kinds': () => [new Uint8Array([1, 2]), new Float32Array([1.5]), new ArrayBuffer(2), new DataView(new ArrayBuffer(1)), /a+/g],
  records: () => [
    { id: 1, name: 'a', at: { x: 1 } },
    { id: 2, name: 'b', at: { x: 2 } },
  ],
  delta: () => [10, 20, 30, 40, 50, 60, 70, 80, 90],
  dict: () => ({ ann: { age: 1 }, bob: { age: 2 } }),
  'lone surrogate': () => 'a\ud800',
  'hostile keys': () => JSON.parse('{"__proto__": 1, "constructor": 2}'),
  // Format version 2: the first {login, id, url} is a map, the second defines a shape, the third refers to it.
  shapes: () => ({
    owner: { login: 'ann', id: 1, url: 'https://x/ann' },
    repo: { name: 'r', owner: { login: 'bob', id: 2, url: 'https://x/bob' } },
    sender: { login: 'cy', id: 3, url: 'https://x/cy' },
  }),
  'shape at first sight': () => ({ a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 6, a7: 7, a8: 8 }),
  // x is a map, y defines the shape, z refers to it; __proto__ must stay an own key throughout.
  'shape with a __proto__ key': () => ({
    n: 0,
    x: JSON.parse('{"__proto__": 1, "abc": 2, "d": 3}'),
    y: JSON.parse('{"__proto__": 4, "abc": 5, "d": 6}'),
    z: JSON.parse('{"__proto__": 7, "abc": 8, "d": 9}'),
  }),
}
