/**
 * How a long command (scan, convert) ended: its report is partial unless `complete`.
 * `redis-gone`: the connection was lost; `redis-error`: Redis refused a command (NOPERM, …).
 */
export type RunEnd = 'complete' | 'interrupted' | 'redis-gone' | 'redis-error'
