// The codec's one shared UTF-8 decoder for whole inputs (a streaming decode needs one of its own):
// `fatal`, so bytes that are not UTF-8 throw (a TypeError the caller turns into CORRUPT) instead of
// becoming U+FFFD; `ignoreBOM`, so a leading U+FEFF stays part of the text (a string, a table or a
// tag that starts with one) instead of being dropped as a byte order mark.
export const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
