import { ExitCode } from '../errors/exit-codes.js'
import { reportFailure } from '../errors/report-failure.js'
import { writeOutput } from '../io/write-output.js'
import { createProgress, type ProgressMode } from '../progress/progress.js'
import { connectRedis } from '../redis/connect.js'
import { onInterrupt } from '../run/interrupt.js'
import { buildScanReport, scanReportText } from '../scan/scan-report.js'
import { scanKeys } from '../scan/scan-keys.js'
import { ScanStats } from '../scan/scan-stats.js'
import { safeJson } from '../format/safe-text.js'

/** Options of `stowage scan`; the CLI gives each its default. */
export interface ScanOptions {
  /** SCAN MATCH pattern. Defaults to every key. */
  readonly match?: string
  /** SCAN COUNT hint. Defaults to 1000. */
  readonly count: number
  /** Keys per second at most. Defaults to no limit. */
  readonly rate?: number
  /** How many of the largest keys to list. Defaults to 10. */
  readonly top: number
  /** How many JSON values to re-encode for the estimate. Defaults to 400. */
  readonly sample: number
  /** Print JSON instead of text. Defaults to false. */
  readonly json?: boolean
  /** When to show the progress bar. Defaults to `auto` (on a terminal). */
  readonly progress: ProgressMode
}

/**
 * `stowage scan <redis-url>`: what the keys hold, and what Stowage would save. Read-only.
 * @param url - a redis:// URL.
 * @param options - see {@link ScanOptions}.
 * @returns OK, INTERRUPTED (SIGINT) or REDIS (went away or refused a command), each after printing the (partial) report.
 * @throws {StowageError} STORE_ERROR when Redis cannot be reached at all.
 */
export async function scanCommand(url: string, options: ScanOptions): Promise<ExitCode> {
  const interrupt = onInterrupt()
  const redis = await connectRedis(url)
  try {
    const dbsize = await redis.client.dbsize().catch((e: unknown) => {
      throw redis.failure(e)
    })
    const rate = options.rate ?? Infinity
    // A batch is at most a tenth of a second's worth of keys under --rate, so the pace stays even.
    const count = Number.isFinite(rate) ? Math.max(1, Math.min(options.count, Math.ceil(rate / 10))) : options.count
    const progress = createProgress('scanning', options.match === undefined ? dbsize : undefined, options.progress)
    const stats = new ScanStats(options.top, options.sample)
    const started = performance.now()
    const { end, error } = await scanKeys(redis, stats, { match: options.match, count, rate, signal: interrupt.signal, progress })
    progress.stop()
    const report = buildScanReport(stats, { server: redis.label, match: options.match, end, elapsedMs: performance.now() - started, dbsize })
    if (error) reportFailure(error)
    if (end === 'interrupted') process.stderr.write('stowage: interrupted: the report covers the keys scanned so far\n')
    await writeOutput(options.json ? safeJson(JSON.stringify(report, null, 2)) + '\n' : scanReportText(report), undefined, false)
    return end === 'complete' ? ExitCode.OK : end === 'interrupted' ? ExitCode.INTERRUPTED : ExitCode.REDIS
  } finally {
    interrupt.dispose()
    await redis.close()
  }
}
