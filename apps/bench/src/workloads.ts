// The synthetic workloads (W1 from the seed article, W2–W4), generated from a fixed seed so every run
// (and every peer within a run) sees the same data.

/** A small, fast, seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** W1-N, from the seed article: N items `{ index, createdAt, nested: { isEven } }`. */
export function w1(n: number): Array<{ index: number; createdAt: number; nested: { isEven: boolean } }> {
  return Array.from({ length: n }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
}

/** W1 with its rows shuffled: the same data without sorted columns (the case DELTA cannot help). */
export function w1Shuffled(n: number): ReturnType<typeof w1> {
  const rows = w1(n)
  const rand = prng(7)
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[rows[i], rows[j]] = [rows[j]!, rows[i]!]
  }
  return rows
}

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you ' +
  'cache memory binary format redis browser server object value store fast small compact network latency request ' +
  'response message pack deflate byte array index session token user post comment author title paragraph reader ' +
  'writer stream buffer encode decode schema version migrate expire evict refresh stale fresh shared local remote'
).split(' ')

function sentence(rand: () => number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!)
  const s = out.join(' ')
  return s.charAt(0).toUpperCase() + s.slice(1) + '.'
}

function person(rand: () => number, id: number) {
  const first = ['Ada', 'Linus', 'Grace', 'Ken', 'Barbara', 'Dennis', 'Margaret', 'Guido', 'Anders', 'Radia'][id % 10]!
  const last = ['Lovelace', 'Torvalds', 'Hopper', 'Thompson', 'Liskov', 'Ritchie', 'Hamilton', 'Rossum', 'Hejlsberg', 'Perlman'][
    Math.floor(rand() * 10)
  ]!
  return { id, name: `${first} ${last}`, avatarUrl: `https://cdn.example.com/avatars/${id}.png` }
}

/** W2: a ~30 kB blog post with 40 comments, seeded. */
export function w2(seed = 42) {
  const rand = prng(seed)
  const paragraphs: string[] = []
  for (let p = 0; p < 24; p++) {
    const sentences: string[] = []
    for (let s = 0; s < 8; s++) sentences.push(sentence(rand, 8 + Math.floor(rand() * 10)))
    paragraphs.push(sentences.join(' '))
  }
  const comments = Array.from({ length: 40 }, (_, i) => ({
    author: person(rand, 100 + Math.floor(rand() * 900)),
    text: sentence(rand, 10 + Math.floor(rand() * 30)),
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000 + Math.floor(rand() * 3_600_000)).toISOString(),
    likes: Math.floor(rand() * 500),
  }))
  return {
    id: 4242,
    slug: 'one-binary-format-for-every-cache',
    title: 'One binary format for every cache',
    author: person(rand, 7),
    publishedAt: '2026-01-01T09:00:00.000Z',
    tags: ['cache', 'messagepack', 'redis', 'indexeddb', 'performance'],
    paragraphs,
    comments,
  }
}

/** W3, from the Redis-hashes article: 1001 objects × 101 fields, each holding the object's 200-char hex string. */
export function w3(): Array<Record<string, string>> {
  const rand = prng(3)
  return Array.from({ length: 1001 }, () => {
    let hex = ''
    while (hex.length < 200) hex += Math.floor(rand() * 0x100000000).toString(16).padStart(8, '0')
    hex = hex.slice(0, 200)
    const obj: Record<string, string> = {}
    for (let f = 0; f <= 100; f++) obj[`field-${f}`] = hex
    return obj
  })
}

/** W4: a ~120 B session token. */
export function w4(seed = 4) {
  const rand = prng(seed)
  let token = ''
  while (token.length < 32) token += Math.floor(rand() * 16).toString(16)
  return { userId: 'u_8f3a2c', token, scopes: ['read:posts', 'write:comments', 'profile'], expiresAt: 1767225600000 }
}
