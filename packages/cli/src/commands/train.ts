import { writeFile } from 'node:fs/promises'
import { DICTIONARY_KEY_PREFIX, storeDictionary } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { ExitCode } from '../errors/exit-codes.js'
import { invalidInput } from '../errors/report-failure.js'
import { safeJson } from '../format/safe-text.js'
import { writeOutput } from '../io/write-output.js'
import { connectRedis } from '../redis/connect.js'
import { onInterrupt } from '../run/interrupt.js'
import { sampleValues } from '../train/sample-values.js'
import { dictionaryIdHex, MIN_VALUES, train, trainReportText, type TrainReport } from '../train/train-report.js'

/** Options of `stowage train`; the CLI gives each its default. */
export interface TrainCommandOptions {
  /** SCAN MATCH pattern of the keys to learn from. Required. */
  readonly match: string
  /** The dictionary's size in bytes, 256 to 32768. Defaults to 4096. */
  readonly size: number
  /** Values sampled (four fifths train, one fifth measures). Defaults to 2000. */
  readonly sample: number
  /** SCAN COUNT hint. Defaults to 1000. */
  readonly count: number
  /** Train and measure, store nothing. Defaults to false. */
  readonly dryRun?: boolean
  /** Also write the dictionary's bytes to this file. Defaults to none. */
  readonly output?: string
  /** Print JSON instead of text. Defaults to false. */
  readonly json?: boolean
}

/**
 * `stowage train <redis-url> --match <pattern>`: samples the values of a namespace, trains a
 * preset dictionary on them, measures it on values it was not trained on, and stores it in the
 * same Redis under `#dict:<id>`, where every Cache over that Redis finds it.
 * @param url - a redis:// URL.
 * @param options - see {@link TrainCommandOptions}.
 * @returns OK, or INTERRUPTED (SIGINT: trained on what was scanned so far, nothing stored).
 * @throws {StowageError} INVALID_ARGUMENT for fewer than 20 usable values; STORE_ERROR when Redis fails.
 */
export async function trainCommand(url: string, options: TrainCommandOptions): Promise<ExitCode> {
  const interrupt = onInterrupt()
  const redis = await connectRedis(url)
  try {
    const sample = await sampleValues(redis, { match: options.match, size: options.sample, count: options.count, signal: interrupt.signal })
    if (sample.values.length < MIN_VALUES) {
      throw invalidInput(`${sample.values.length} usable values match ${JSON.stringify(options.match)} (JSON objects or arrays, or envelopes): a dictionary needs at least ${MIN_VALUES}`)
    }
    const trained = train(sample, options.size)
    if (trained === undefined) {
      throw invalidInput(`the ${sample.values.length} values that match ${JSON.stringify(options.match)} are too small to learn a dictionary from (none holds 8 bytes of MessagePack): values this small gain nothing from one`)
    }
    const { dictionary, trainedOn, measured } = trained
    const store = !options.dryRun && !sample.interrupted
    if (store) {
      await storeDictionary(createRedisStore({ client: redis.client }), dictionary).catch((e: unknown) => {
        throw redis.failure(e)
      })
    }
    if (options.output !== undefined) await writeFile(options.output, dictionary)
    const id = dictionaryIdHex(dictionary)
    const report: TrainReport = {
      server: redis.label,
      match: options.match,
      keys: sample.keys,
      reserved: sample.reserved,
      unreadable: sample.unreadable,
      interrupted: sample.interrupted,
      trainedOn,
      measuredOn: sample.values.length - trainedOn,
      dictionary: { id, bytes: dictionary.length, key: DICTIONARY_KEY_PREFIX + id, stored: store, file: options.output ?? null },
      measured,
    }
    await writeOutput(options.json ? safeJson(JSON.stringify(report, null, 2)) + '\n' : trainReportText(report), undefined, false)
    return sample.interrupted ? ExitCode.INTERRUPTED : ExitCode.OK
  } finally {
    interrupt.dispose()
    await redis.close()
  }
}
