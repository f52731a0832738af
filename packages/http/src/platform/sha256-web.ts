// SHA-256 where there is no node:crypto (Deno, workers, browsers): WebCrypto.

/**
 * The SHA-256 of `bytes`.
 * @throws {TypeError} where the runtime has no `crypto.subtle` (a browser page not served over HTTPS or from localhost).
 */
export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>))
}
