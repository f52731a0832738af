/** How a long command (scan, convert) ended: its report is partial unless `complete`. */
export type RunEnd = 'complete' | 'interrupted' | 'redis-gone'
