// Which representation a client asked for: the envelope (the default) or JSON.
import { STOWAGE_MEDIA_TYPE } from './media-type.js'

// The q-value an Accept header gives `type` (0 when it does not name it; wildcards do not count:
// a client that accepts anything gets the envelope).
function quality(accept: string, type: string): number {
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().split(';')
    if (name?.trim().toLowerCase() !== type) continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined ? 1 : Number(q.slice(2)) || 0
  }
  return 0
}

/** Whether a request's `Accept` header prefers `application/json` to the envelope. */
export function prefersJson(accept: string | null): boolean {
  if (accept === null) return false
  const json = quality(accept, 'application/json')
  return json > 0 && json > quality(accept, STOWAGE_MEDIA_TYPE)
}
