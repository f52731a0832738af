// Memory for the payloads encodeEnvelopeAsync hands to another thread's deflate. Each must outlive
// the shared encoder buffer across an await, so it is copied; a new array per payload cost its
// pages' first touch in Chromium (a 512 KiB segment of the persister's save: 21 ms of the main
// thread over a 5,000-query save after a reload, apps/bench/RESULTS.md "App state persisted"),
// where a copy into memory in hand costs a small fraction of that. A copy comes back once its
// deflate has settled: neither sealed form keeps it (sealPayload copies the bytes out).

/** Copies kept for later payloads at most. */
const KEPT = 4
/**
 * Larger copies are not kept, so that large values do not pin their memory: a codec lives as long
 * as its process (a server's Cache encodes its large values with encodeAsync), and keeps at most
 * KEPT copies of up to 2 MiB. The persister's segments (512 KiB by default, 640 KiB with the room
 * added) fit well under it.
 */
const KEPT_MAX = 2 * 1024 * 1024

/** A few arrays, each lent for one payload and given back. Not shared between codecs. */
export class PayloadCopies {
  private readonly kept: Uint8Array[] = []

  /**
   * An array of at least `length` bytes: the smallest given back that fits, or a new one, with a
   * quarter more room (in whole 4 KiB pages) when it could be kept, so that later payloads of
   * about the same size fit.
   */
  take(length: number): Uint8Array {
    let at = -1
    for (let i = 0; i < this.kept.length; i++) {
      const size = (this.kept[i] as Uint8Array).length
      if (size >= length && (at < 0 || size < (this.kept[at] as Uint8Array).length)) at = i
    }
    if (at >= 0) return this.kept.splice(at, 1)[0] as Uint8Array
    const roomy = Math.ceil((length * 1.25) / 4096) * 4096
    return new Uint8Array(length <= 4096 || roomy > KEPT_MAX ? length : roomy)
  }

  /**
   * Takes `array` back for a later payload (nothing may read or write it afterwards): kept while
   * there is room, else in place of the smallest kept when larger (so that small arrays from a
   * page's first payloads do not hold the places of the large ones that come after).
   */
  give(array: Uint8Array): void {
    if (array.length > KEPT_MAX) return
    if (this.kept.length < KEPT) return void this.kept.push(array)
    let smallest = 0
    for (let i = 1; i < this.kept.length; i++) if ((this.kept[i] as Uint8Array).length < (this.kept[smallest] as Uint8Array).length) smallest = i
    if (array.length > (this.kept[smallest] as Uint8Array).length) this.kept[smallest] = array
  }
}
