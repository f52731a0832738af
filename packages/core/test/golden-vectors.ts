// Golden vectors of format version 2: envelope bytes (hex) that encode must keep producing, and
// decoders keep reading. A failing golden test means the wire format changed: bump FORMAT_VERSION
// (and keep these, as golden-vectors-v1.ts keeps version 1's) instead of updating them.
export const goldenVectors: Record<string, string> = {
  "small map": "c10200000b0133e883a16101a162a374776fa16393c3c2c0",
  "numbers": "c1020000a5780c8c9c00ffccffd1ff7fce00010000cf0000010000000000d3ffffff0000000000ca3f000000cb3ff199999999999aca80000000ca7fc00000ca7f800000",
  "undefined and bigint": "c1020000c63a2b8893d44000d541000ac70a4101400000000000000000",
  "dates": "c1020000727f51c594d6ff00000000d7ff1d5353006553f100c70cff3b8b87c0ffffffffffffffffc70042",
  "map and set": "c102000068760015d843929201a17392a36f6e65c70344920102",
  "binary kinds": "c102000019637a3195c4020102c70545070000c03fd5460000d44700c7064892a2612ba167",
  "records": "c1020000edab03e6c72049950293a26964a46e616d65a2617492010292a161a162d749930291a178920102",
  "delta": "c10200009e7c9fb5c70a4a990a0a0a0a0a0a0a0a0a",
  "dict": "c102000044628745c7174b9292a3616e6ea3626f62c70a49930291a3616765920102",
  "lone surrogate": "c102000008f7a595d64c610000d8",
  "hostile keys": "c10200009db893a793c7174d92a95f5f70726f746f5f5fab636f6e7374727563746f720102",
  "shapes": "c10200009977790b83a56f776e657283a56c6f67696ea3616e6ea2696401a375726cad68747470733a2f2f782f616e6ea47265706f82a46e616d65a172a56f776e657294c70e4d93a56c6f67696ea26964a375726ca3626f6202ad68747470733a2f2f782f626f62a673656e64657294d44e00a2637903ac68747470733a2f2f782f6379",
  "shape at first sight": "c102000036fc851b99c7194d98a26131a26132a26133a26134a26135a26136a26137a261380102030405060708",
  "shape with a __proto__ key": "c1020000025f827284a16e00a17894c7114d93a95f5f70726f746f5f5fa3616263a164010203a17994d44e00040506a17a94d44e00070809",
  "schema version 9, fresh until 1767225600123": "c1020003000000090000019b76daa87ba025a62d81a17609",
  "schema version 3": "c102000100000003d550ec8181a17603",
  "tags a:1, é:4294967295": "c10200040201610000000102c3a9ffffffff23f35ba381a17601"
}

/** 'abc' × 100 with compress: 'always' (fflate, level 1): decoders must keep reading it. */
export const goldenCompressed = 'c10201000000012f342b40a8bbc5a89398943c8a884400'

/** The text of the dictionary {@link goldenDictionaryEnvelope} was deflated against. */
export const goldenDictionaryText = '{"userId":"u_","token":"0000000000000000","scopes":["read:posts","write:comments"],"expiresAt":1767225600000}'.repeat(4)

/**
 * A token `{ userId, token, scopes, expiresAt }` deflated against that dictionary by Node's zlib
 * (compress: 'always'): every platform must read it, whichever deflate wrote it.
 */
export const goldenDictionaryEnvelope = 'c10202009049188c0000006e130b77646b5906b16c4569bcb9458aa9a5c552b0753715c0d2e8849159a2814592b1699299c53288dd9356216c5e876aef4ab8a5e71918186797dd5afd0200'

/**
 * The same token written by Stowage 0.3 (compression id 3: the payload's CRC-32 after the
 * dictionary id, so a wrong dictionary with the same id is CHECKSUM_MISMATCH), by Node's zlib.
 */
export const goldenCheckedDictionaryEnvelope = 'c10203009049188cf78fd1850000006e609be6516b5906b16c4569bcb9458aa9a5c552b0753715c0d2e8c0c82cd1c022c9d834c9cc6219c4ee49ab1036af43b57725dcd2f30c0c8cb3cb6ead7e0100'
