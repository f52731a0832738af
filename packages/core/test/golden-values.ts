// The values behind the golden vectors (golden-vectors.ts). Never change a value here without
// bumping the format version: the bytes are the format.
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
}
