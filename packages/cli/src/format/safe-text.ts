// Stored data is printed as escapes where a terminal would act on it or hide it: a key, a tag or a
// value with ESC or BEL could clear the screen, move the cursor or paint a line ("CRC-32 ok"), and
// a bidi override (U+202E) or a zero-width character makes text read otherwise than it is. Escaped:
// C0 controls (text: all of them; inspect's own lines keep their newlines), DEL, C1 controls,
// Unicode format characters (Cf: bidi controls, zero-width ones, the BOM, soft hyphen, …), line
// and paragraph separators, and lone surrogates.

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu
// The same, past what JSON.stringify escapes itself (C0, lone surrogates): DEL, C1, Cf, Zl, Zp.
const UNSAFE_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu
// In util.inspect's text: its newlines and, on a terminal, its colours (SGR sequences) are its own.
const UNSAFE_IN_DISPLAY = /\x1b\[[\d;]*m|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, '0')
}

/**
 * One character as an escape: `\x1B` up to U+00FF (as node's util.inspect writes them), `\n`,
 * `\t` and `\r` by name, `\u202E` and `\u{E0001}` beyond.
 * @param char - one code point.
 * @returns the escape.
 */
export function escapeChar(char: string): string {
  if (char === '\n') return '\\n'
  if (char === '\t') return '\\t'
  if (char === '\r') return '\\r'
  const code = char.codePointAt(0)!
  return code <= 0xff ? `\\x${hex(code, 2)}` : code <= 0xffff ? `\\u${hex(code, 4)}` : `\\u{${hex(code, 5)}}`
}

/**
 * Text from stored data (a key, a tag, a message that quotes a value), fit for a terminal: every
 * control, format and separator character as an escape (see escapeChar).
 * @param text - any text.
 * @returns the text, one line, without a character a terminal acts on or hides.
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE, escapeChar)
}

/**
 * A string quoted as JSON, fit for a terminal: `JSON.stringify` and then DEL, C1 and format
 * characters as `\u` escapes too.
 * @param text - any text.
 * @returns the quoted string; `JSON.parse` reads it back as `text`.
 */
export function quote(text: string): string {
  return safeJson(JSON.stringify(text))
}

/**
 * JSON text fit for a terminal: the characters JSON.stringify leaves raw in strings (DEL, C1,
 * format characters, U+2028/U+2029) as `\u` escapes. The JSON reads back the same.
 * @param json - the output of JSON.stringify.
 * @returns the same JSON with those characters escaped.
 */
export function safeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (char) => Array.from({ length: char.length }, (_, i) => `\\u${hex(char.charCodeAt(i), 4).toLowerCase()}`).join(''))
}

/**
 * The text of util.inspect, fit for a terminal: its own newlines, and its colours when it was
 * asked for them, are kept; any other control or format character is escaped.
 * @param text - util.inspect's output.
 * @param colors - whether it was asked for colours (then SGR sequences are its own).
 * @returns the text.
 */
export function safeDisplay(text: string, colors: boolean): string {
  return text.replace(UNSAFE_IN_DISPLAY, (match) => (match === '\n' || (colors && match.length > 1) ? match : match.length > 1 ? escapeChar('\x1b') + match.slice(1) : escapeChar(match)))
}
