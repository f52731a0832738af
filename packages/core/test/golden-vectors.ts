// Golden vectors of format version 1: envelope bytes (hex) that encode must keep producing.
// A failing golden test means the wire format changed: bump FORMAT_VERSION instead of updating these.
export const goldenVectors: Record<string, string> = {
  "small map": "c1010000a857b54183a16101a162a374776fa16393c3c2c0",
  "numbers": "c1010000ac51bb6f9c00ffccffd1ff7fce00010000cf0000010000000000d3ffffff0000000000ca3f000000cb3ff199999999999aca80000000cb7ff8000000000000ca7f800000",
  "undefined and bigint": "c10100009e2482a093d44000d541000ac70a4101400000000000000000",
  "dates": "c10100003f9751a294d6ff00000000d7ff1d5353006553f100c70cff3b8b87c0ffffffffffffffffc70042",
  "map and set": "c1010000136882f6d843929201a17392a36f6e65c70344920102",
  "binary kinds": "c1010000d07c728e95c4020102c70545070000c03fd5460000d44700c7064892a2612ba167",
  "records": "c1010000a0430381c72049950293a26964a46e616d65a2617492010292a161a162d749930291a178920102",
  "delta": "c1010000b7b42b47c70a4a990a0a0a0a0a0a0a0a0a",
  "dict": "c1010000e16aec29c7174b9292a3616e6ea3626f62c70a49930291a3616765920102",
  "lone surrogate": "c1010000317a9950d64c610000d8",
  "hostile keys": "c10100007d010f3f82a95f5f70726f746f5f5f01ab636f6e7374727563746f7202",
  "schema version 9, fresh until 1767225600123": "c1010003000000090000019b76daa87b0373208481a17609",
  "schema version 3": "c1010001000000034cb28a8081a17603"
}

/** 'abc' × 100 with compress: 'always' (fflate, level 1): decoders must keep reading it. */
export const goldenCompressed = 'c10101000000012feddc47ecbbc5a89398943c8a884400'
