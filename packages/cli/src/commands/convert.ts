import { emptyConvertStats } from '../convert/convert-stats.js'
import { convertKeys } from '../convert/convert-keys.js'
import { convertReportText, type ConvertReport } from '../convert/convert-report.js'
import { ExitCode } from '../errors/exit-codes.js'
import { reportFailure } from '../errors/report-failure.js'
import { writeOutput } from '../io/write-output.js'
import { createProgress, type ProgressMode } from '../progress/progress.js'
import { connectRedis } from '../redis/connect.js'
import { onInterrupt } from '../run/interrupt.js'
import { safeJson } from '../format/safe-text.js'

/** Options of `stowage convert`; the CLI gives each its default. */
export interface ConvertOptions {
  /** SCAN MATCH pattern of the keys to convert (required: converting a whole server is never implied). */
  readonly match: string
  /** Keys per batch. Defaults to 500. */
  readonly batch: number
  /** Keys per second at most. Defaults to no limit. */
  readonly rate?: number
  /** Read and encode but write nothing. Defaults to false. */
  readonly dryRun?: boolean
  /** Print JSON instead of text. Defaults to false. */
  readonly json?: boolean
  /** When to show the progress bar. Defaults to `auto` (on a terminal). */
  readonly progress: ProgressMode
}

/**
 * `stowage convert <redis-url> --match pattern`: JSON strings to Stowage envelopes, in place.
 * @param url - a redis:// URL.
 * @param options - see {@link ConvertOptions}.
 * @returns OK, INTERRUPTED (SIGINT) or REDIS (a Redis failure), each after printing the (partial) report.
 * @throws {StowageError} STORE_ERROR when Redis cannot be reached at all.
 */
export async function convertCommand(url: string, options: ConvertOptions): Promise<ExitCode> {
  const interrupt = onInterrupt()
  const redis = await connectRedis(url)
  try {
    const progress = createProgress(options.dryRun ? 'checking' : 'converting', undefined, options.progress)
    const stats = emptyConvertStats()
    const started = performance.now()
    const { end, error } = await convertKeys(redis, stats, {
      match: options.match,
      batch: options.batch,
      rate: options.rate ?? Infinity,
      dryRun: options.dryRun === true,
      signal: interrupt.signal,
      progress,
    })
    progress.stop()
    const report: ConvertReport = { server: redis.label, match: options.match, dryRun: options.dryRun === true, end, elapsedMs: Math.round(performance.now() - started), ...stats }
    if (error) reportFailure(error)
    await writeOutput(options.json ? safeJson(JSON.stringify(report, null, 2)) + '\n' : convertReportText(report), undefined, false)
    return end === 'complete' ? ExitCode.OK : end === 'interrupted' ? ExitCode.INTERRUPTED : ExitCode.REDIS
  } finally {
    interrupt.dispose()
    await redis.close()
  }
}
