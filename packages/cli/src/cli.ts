#!/usr/bin/env node
// The `stowage` command: wires each subcommand to commander; the work is in commands/.
import { createRequire } from 'node:module'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { convertCommand } from './commands/convert.js'
import { decodeCommand } from './commands/decode.js'
import { encodeCommand } from './commands/encode.js'
import { inspectCommand } from './commands/inspect.js'
import { scanCommand } from './commands/scan.js'
import { trainCommand } from './commands/train.js'
import { DEFAULT_TRAIN_SIZE } from './train/train-report.js'
import { ExitCode, exitCodeFor } from './errors/exit-codes.js'
import { reportFailure } from './errors/report-failure.js'
import type { ProgressMode } from './progress/progress.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

function positiveInteger(text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.')
  return n
}

function nonNegativeInteger(text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected an integer of 0 or more.')
  return n
}

function positiveNumber(text: string): number {
  const n = Number(text)
  if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError('expected a positive number.')
  return n
}

function dictionarySize(text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 256 || n > 32768) throw new InvalidArgumentError('expected an integer from 256 to 32768.')
  return n
}

function progressMode(options: { progress?: boolean }): ProgressMode {
  return options.progress === undefined ? 'auto' : options.progress ? 'always' : 'never'
}

// Runs a command and exits with its code; failures are one line on stderr, never a stack trace.
function run<A extends unknown[]>(action: (...args: A) => Promise<ExitCode>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let code: ExitCode
    try {
      code = await action(...args)
    } catch (e) {
      reportFailure(e)
      code = exitCodeFor(e)
    }
    process.exitCode = code
    // Open handles (a Redis socket closing) must not keep the process alive after the answer.
    setTimeout(() => process.exit(code), 200).unref()
  }
}

const program = new Command()
  .name('stowage')
  .description('See what is cached, and what Stowage would save: inspect envelopes, scan and convert Redis, encode and decode.')
  .version(version)
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(`stowage: ${text.replace(/^error: /, '')}`) })

program
  .command('inspect')
  .description('print an envelope: header, CRC, Redis TTL and memory, ratio to JSON, and the value with its types')
  .argument('<source>', 'a redis:// URL (then <key>), a file, or - for standard input')
  .argument('[key]', 'the key, with a Redis URL')
  .argument('[field]', "a field of a hash (a bundle's field), with a Redis URL")
  .option('--json', 'print JSON (the value as tagged JSON, see decode --tagged)')
  .option('--dictionary <file>', "the preset dictionary of an envelope from a file or standard input (a Redis source takes it from that Redis)")
  .action(run((source: string, key: string | undefined, field: string | undefined, options: { json?: boolean; dictionary?: string }) => inspectCommand(source, key, field, options)))

program
  .command('scan')
  .description('SCAN a Redis (read-only): keys by kind, memory, largest keys, envelope compression, and what Stowage would save on JSON values')
  .argument('<redis-url>', 'redis://[user:password@]host:port[/db]')
  .option('--match <pattern>', 'only keys matching this SCAN pattern')
  .option('--count <n>', 'SCAN COUNT hint: keys per batch', positiveInteger, 1000)
  .option('--rate <keys-per-second>', 'read at most this many keys a second', positiveNumber)
  .option('--top <n>', 'list the n largest keys', nonNegativeInteger, 10)
  .option('--sample <n>', 'JSON values to re-encode for the estimate', nonNegativeInteger, 400)
  .option('--json', 'print the report as JSON')
  .option('--progress', 'show progress on stderr even when it is not a terminal (a line a second)')
  .option('--no-progress', 'never show progress')
  .action(
    run((url: string, o: { match?: string; count: number; rate?: number; top: number; sample: number; json?: boolean; progress?: boolean }) =>
      scanCommand(url, { ...o, progress: progressMode(o) }),
    ),
  )

program
  .command('convert')
  .description('rewrite JSON string values as Stowage envelopes in place, keeping each TTL; envelopes are skipped, so it can be run again')
  .argument('<redis-url>', 'redis://[user:password@]host:port[/db]')
  .requiredOption('--match <pattern>', 'the keys to convert (SCAN pattern)')
  .option('--batch <n>', 'keys per batch', positiveInteger, 500)
  .option('--rate <keys-per-second>', 'handle at most this many keys a second', positiveNumber)
  .option('--dry-run', 'read and encode, write nothing: what would be converted and saved')
  .option('--dictionary <id>', 'compress with the dictionary stored under this id in the same Redis (see train)')
  .option('--json', 'print the report as JSON')
  .option('--progress', 'show progress on stderr even when it is not a terminal (a line a second)')
  .option('--no-progress', 'never show progress')
  .action(
    run((url: string, o: { match: string; batch: number; rate?: number; dryRun?: boolean; dictionary?: string; json?: boolean; progress?: boolean }) =>
      convertCommand(url, { ...o, progress: progressMode(o) }),
    ),
  )

program
  .command('train')
  .description('sample the values of a namespace, train a preset dictionary, measure it on values it never saw, and store it where every Cache over this Redis finds it')
  .argument('<redis-url>', 'redis://[user:password@]host:port[/db]')
  .requiredOption('--match <pattern>', 'the keys to learn from (SCAN pattern), e.g. users:*')
  .option('--size <bytes>', 'the dictionary size, 256 to 32768', dictionarySize, DEFAULT_TRAIN_SIZE)
  .option('--sample <n>', 'values to sample: four fifths train, one fifth measures', positiveInteger, 2000)
  .option('--count <n>', 'SCAN COUNT hint: keys per batch', positiveInteger, 1000)
  .option('--dry-run', 'train and measure, store nothing')
  .option('-o, --output <file>', 'also write the dictionary bytes to this file (to ship with your code)')
  .option('--json', 'print the report as JSON')
  .action(run((url: string, o: { match: string; size: number; sample: number; count: number; dryRun?: boolean; output?: string; json?: boolean }) => trainCommand(url, o)))

program
  .command('encode')
  .description('JSON (or an ES module\'s default export) to envelope bytes')
  .argument('[input]', 'a JSON file, or - for standard input', undefined)
  .option('-o, --output <file>', 'write the envelope here instead of standard output')
  .option('--module <file>', 'encode the default export of this ES module (.mjs, .js)')
  .option('--tagged', 'read {"$stowage": …} objects as Map, Set, Date, BigInt, … (what decode --tagged writes)')
  .action(run((input: string | undefined, o: { output?: string; module?: string; tagged?: boolean }) => encodeCommand(input, o)))

program
  .command('decode')
  .description('envelope bytes to JSON; refuses what JSON cannot hold unless --tagged')
  .argument('[input]', 'an envelope file, or - for standard input', undefined)
  .option('-o, --output <file>', 'write the JSON here instead of standard output')
  .option('--tagged', 'write Map, Set, Date, BigInt, typed arrays, undefined, NaN, -0 as {"$stowage": …} objects')
  .addOption(new Option('--indent <n>', 'spaces of indentation, 0 for one line').argParser(nonNegativeInteger).default(2))
  .option('--dictionary <file>', 'the preset dictionary the envelope was written with (stowage train -o writes one)')
  .action(run((input: string | undefined, o: { output?: string; tagged?: boolean; indent: number; dictionary?: string }) => decodeCommand(input, o)))

try {
  await program.parseAsync()
} catch (e) {
  if (e instanceof CommanderError) {
    // --help and --version end here too, with exit code 0.
    process.exitCode = e.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE
  } else {
    reportFailure(e)
    process.exitCode = exitCodeFor(e)
  }
}
