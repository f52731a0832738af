// The encoder's memory of object keys, kept across calls: each key sequence seen is a path in a
// trie whose nodes hold the key's MessagePack bytes (so keys are converted to UTF-8 once, not once
// per object: string conversion is the slowest thing a JavaScript encoder does, and a Redis client
// that subclasses String makes charCodeAt slower still) and the per-call state of the shape that
// the path spells (see ExtType.SHAPE).
import { ExtType } from './format.js'
import { encodeKey } from './types/string.js'

// A shape is written as an array [marker, v0, …]: header of k + 1 elements plus a 3–4 byte marker.
// It replaces a map header plus the keys, so it only pays when the keys take more than that.
function arrayHeaderSize(n: number): number {
  return n < 16 ? 1 : n < 0x10000 ? 3 : 5
}

/** One key sequence: the path from the root to this node. */
export class KeyNode {
  /** Transitions to the next key. */
  readonly next = new Map<string, KeyNode>()
  /** Whether a SHAPE costs fewer bytes than a map for this key sequence, even with a 2-byte id. */
  readonly shapePays: boolean
  /**
   * Whether a key on the path is `__proto__`. Such objects are always written as shapes, whose keys
   * are an array of strings: plain MessagePack libraries refuse or rename a `__proto__` map key.
   */
  readonly protoKey: boolean
  /** Whether its SHAPE marker fits an ext 16 (64 KiB of key list): past that, the object is a map (FORMAT.md §2). */
  readonly markerFits: boolean
  /** Per-call state, valid when `epoch` is the trie's current epoch: objects seen as maps, shape id. */
  epoch = 0
  seen = 0
  id = -1
  private marker: Uint8Array | undefined

  constructor(
    readonly parent: KeyNode | undefined,
    readonly key: string,
    /** The key as MessagePack (a str, or a UTF16 extension for lone surrogates). */
    readonly bytes: Uint8Array,
    /** How many keys the path holds. */
    readonly count: number,
    /** Their MessagePack size, summed. */
    readonly keyBytes: number,
  ) {
    const mapHeader = count < 16 ? 1 : 3
    this.markerFits = arrayHeaderSize(count) + keyBytes <= 0xffff
    this.shapePays = count > 0 && mapHeader + keyBytes > arrayHeaderSize(count + 1) + 4 && this.markerFits
    this.protoKey = key === '__proto__' || parent?.protoKey === true
  }

  /** The keys along the path, first to last. */
  keys(): string[] {
    const out = new Array<string>(this.count)
    let node: KeyNode = this
    for (let i = this.count - 1; i >= 0; i--, node = node.parent as KeyNode) out[i] = node.key
    return out
  }

  /**
   * The SHAPE marker for this key sequence: an ext whose data is the MessagePack array of the keys.
   * Always an ext 8 or ext 16, so readers can tell its size from its first byte.
   */
  shapeMarker(): Uint8Array {
    if (this.marker !== undefined) return this.marker
    const parts: Uint8Array[] = []
    for (let node: KeyNode | undefined = this; node !== undefined && node.count > 0; node = node.parent) parts.push(node.bytes)
    parts.reverse()
    const header = arrayHeaderSize(this.count)
    const data = header + this.keyBytes
    const extHeader = data < 0x100 ? 3 : 4
    const out = new Uint8Array(extHeader + data)
    let p = 0
    if (extHeader === 3) {
      out[p++] = 0xc7
      out[p++] = data
    } else {
      out[p++] = 0xc8
      out[p++] = data >>> 8
      out[p++] = data & 0xff
    }
    out[p++] = ExtType.SHAPE
    if (header === 1) out[p++] = 0x90 | this.count
    else {
      out[p++] = 0xdc
      out[p++] = this.count >>> 8
      out[p++] = this.count & 0xff
    }
    for (const part of parts) {
      out.set(part, p)
      p += part.length
    }
    this.marker = out
    return out
  }
}

// Keys longer than this never enter the trie (a long key is data, not a field name).
const MAX_KEY_LENGTH = 256
// A trie grown past this many nodes (objects used as dictionaries keyed by ids) starts afresh at
// the next call, and within one call it stops growing at four times that, so its memory stays
// bounded; objects whose keys it does not hold are written as maps.
const MAX_NODES = 32_768

/** The trie of key sequences of one encoder. */
export class KeyTrie {
  private root = new KeyNode(undefined, '', new Uint8Array(0), 0, 0)
  private nodes = 0
  /** Changes every call, so per-call node state resets without a walk. */
  epoch = 0

  /** Starts a call: a new epoch, and a new trie when the old one grew too big. */
  begin(): KeyNode {
    if (this.nodes > MAX_NODES) {
      this.root = new KeyNode(undefined, '', new Uint8Array(0), 0, 0)
      this.nodes = 0
    }
    this.epoch = (this.epoch + 1) | 0
    return this.root
  }

  /** The node after `node` for `key`, created on first sight; undefined for keys the trie does not take. */
  step(node: KeyNode, key: string): KeyNode | undefined {
    const found = node.next.get(key)
    if (found !== undefined) return found
    if (key.length > MAX_KEY_LENGTH || this.nodes >= 4 * MAX_NODES) return undefined
    const bytes = encodeKey(key)
    const child = new KeyNode(node, key, bytes, node.count + 1, node.keyBytes + bytes.length)
    node.next.set(key, child)
    this.nodes++
    return child
  }
}
