// Golden vectors of format version 4 (an ASCII string table and a text table before the value):
// envelope bytes (hex) that encode must keep producing, and decoders keep reading. A value whose
// table strings are all ASCII is still written as version 3 (golden-vectors-v3.ts pins those, with
// `formatVersion: 3` for the ones that hold other strings). A failing golden test means the wire
// format changed: bump FORMAT_VERSION and keep these, as golden-vectors-v1.ts keeps version 1's.

/** The values pinned below, by name. */
export const goldenValuesV4: Record<string, () => unknown> = {
  // 41 strings: ASCII ones in the ASCII table; two- and four-byte UTF-8, a leading byte-order mark
  // and a 300-char string of three-byte UTF-8 (a uint16 length) in the text table; an empty string
  // written inline.
  'ascii and text tables': () => [
    ...Array.from({ length: 34 }, (_, i) => `s${i}`),
    'é',
    '😀 smile',
    '\uFEFFbom',
    '',
    'x'.repeat(300),
    '語'.repeat(300),
    'last',
  ],
  // Text strings inside shapes, a Map, a Set and RECORDS columns (extensions whose headers shrink
  // after their data is written), among ASCII ones: references are read in the order of the bytes.
  'text strings in shapes, maps, sets and records': () => ({
    users: Array.from({ length: 8 }, (_, i) => ({ login: `user${i}`, name: i % 3 ? `Ann ${i}` : `Zoë ${i}`, type: i % 2 ? 'User' : 'Bot' })),
    labels: new Map<unknown, unknown>([['bug', 'rouge vif'], [2, 'deux ✌']]),
    topics: new Set(['cache', 'größe']),
    rows: Array.from({ length: 5 }, (_, i) => ({ id: i, name: i === 2 ? 'row ² ' : `row ${i}` })),
    notes: { first: 'a', second: '🅱', third: 'c' },
  }),
}

export const goldenVectorsV4: Record<string, string> = {
  "ascii and text tables": "c1040000ae4a6a0ac5018c73307331733273337334733573367337733873397331307331317331327331337331347331357331367331377331387331397332307332317332327332337332347332357332367332377332387332397333307333317333327333337878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878786c617374c50396c3a9f09f988020736d696c65efbbbf626f6de8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9ee8aa9edc0029d44f02d44f02d44f02d44f02d44f02d44f02d44f02d44f02d44f02d44f02d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d44f03d45001d45008d45004a0d54f012cd550012cd44f04",
  "text strings in shapes, maps, sets and records": "c1040000158c90e5c48475736572307573657231757365723275736572337573657234757365723575736572367573657237416e6e2031416e6e2032416e6e2034416e6e2035416e6e2037426f7455736572426f7455736572426f7455736572426f7455736572627567726f756765207669666361636865726f772030726f772031726f772033726f7720346163c42c5a6fc3ab20305a6fc3ab20335a6fc3ab20366465757820e29c8c6772c3b6c39f65726f7720c2b220f09f85b185a57573657273c75e49950893a56c6f67696ea46e616d65a47479706598d44f05d44f05d44f05d44f05d44f05d44f05d44f05d44f0598d45005d44f05d44f05d45005d44f05d44f05d45005d44f0598d44f03d44f04d44f03d44f04d44f03d44f04d44f03d44f04a66c6162656c73c70d439292d44f030292d44f09d45006a6746f70696373c7074492d44f05d45005a4726f7773c72149940592a26964a46e616d6595000102030495d44f05d44f05d45006d44f05d44f05a56e6f74657383a56669727374d44f01a67365636f6e64d45002a57468697264d44f01"
}
