import { createCodec, dictionaryKey, loadDictionary, StowageError, StowageErrorCode, type Codec } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
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
import { invalidInput } from '../errors/report-failure.js'
import type { RedisConnection } from '../redis/connect.js'

// A codec that compresses with the dictionary `id` holds in this Redis (`stowage train` stores them).
async function dictionaryCodec(redis: RedisConnection, id: string): Promise<Codec> {
  if (!/^(0x)?[0-9a-fA-F]{8}$/.test(id)) throw invalidInput(`--dictionary takes a dictionary id, 8 hex digits (as stowage train prints it), not ${JSON.stringify(id)}`)
  const number = Number.parseInt(id.replace(/^0x/, ''), 16)
  let dictionary: Uint8Array | undefined
  try {
    dictionary = await loadDictionary(createRedisStore({ client: redis.client }), number)
  } catch (e) {
    if (StowageError.isInstance(e) && e.code === StowageErrorCode.CORRUPT) throw invalidInput(`the dictionary ${id} in this Redis is refused: ${e.message}`, e)
    throw redis.failure(e)
  }
  if (dictionary === undefined) throw invalidInput(`this Redis holds no dictionary ${id} (no key ${dictionaryKey(number)}): stowage train stores one`)
  return createCodec({ dictionaries: [dictionary] })
}

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
  /** Compress with the dictionary stored under this id in the same Redis (8 hex digits). Defaults to none. */
  readonly dictionary?: string
}

/**
 * `stowage convert <redis-url> --match pattern`: JSON strings to Stowage envelopes, in place.
 * @param url - a redis:// URL.
 * @param options - see {@link ConvertOptions}.
 * @returns OK, INTERRUPTED (SIGINT) or REDIS (a Redis failure), each after printing the (partial) report.
 * @throws {StowageError} STORE_ERROR when Redis cannot be reached at all; INVALID_ARGUMENT for a --dictionary this Redis does not hold (or holds damaged).
 */
export async function convertCommand(url: string, options: ConvertOptions): Promise<ExitCode> {
  const interrupt = onInterrupt()
  const redis = await connectRedis(url)
  try {
    const codec = options.dictionary === undefined ? undefined : await dictionaryCodec(redis, options.dictionary)
    const progress = createProgress(options.dryRun ? 'checking' : 'converting', undefined, options.progress)
    const stats = emptyConvertStats()
    const started = performance.now()
    const { end, error } = await convertKeys(redis, stats, {
      match: options.match,
      batch: options.batch,
      rate: options.rate ?? Infinity,
      dryRun: options.dryRun === true,
      codec,
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
