import cliProgress from 'cli-progress'

/** Progress of a long command on stderr (the report goes to stdout). */
export interface Progress {
  /**
   * @param done - keys handled so far.
   * @param extra - more figures for the line (converted, refused, …).
   */
  update(done: number, extra?: string): void
  /** Draws the last state and leaves the line. */
  stop(): void
}

/** When to show progress: `auto` on a terminal only. */
export type ProgressMode = 'auto' | 'always' | 'never'

/**
 * A progress bar (cli-progress) with keys/s, and an ETA when the total is known. On a terminal it
 * redraws in place; elsewhere, with `always`, it writes a line a second (for logs and tests).
 * @param label - what is going on: `scanning`, `converting`.
 * @param total - how many keys there are, if known (DBSIZE).
 * @param mode - when to show it.
 * @returns the progress.
 */
export function createProgress(label: string, total: number | undefined, mode: ProgressMode): Progress {
  const tty = process.stderr.isTTY === true
  if (mode === 'never' || (mode === 'auto' && !tty)) return { update() {}, stop() {} }
  const started = Date.now()
  const format =
    total === undefined
      ? `${label} {value} keys | {speed} keys/s | {duration_formatted}{extra}`
      : `${label} {bar} {percentage}% | {value}/{total} keys | {speed} keys/s | ETA {eta_formatted}{extra}`
  const bar = new cliProgress.SingleBar(
    {
      format,
      stream: process.stderr,
      hideCursor: tty,
      noTTYOutput: !tty,
      notTTYSchedule: 1000,
      fps: 5,
      etaBuffer: 50,
      barsize: 24,
      // SCAN may meet a key twice while the table grows: never show more than 100%.
      formatValue: (v, _o, type) => (type === 'value' && total !== undefined ? String(Math.min(v, total)) : String(v)),
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(total ?? 0, 0, { speed: '0', extra: '' })
  return {
    update(done, extra) {
      const seconds = (Date.now() - started) / 1000
      bar.update(done, { speed: seconds > 0 ? Math.round(done / seconds).toLocaleString('en-US') : '0', extra: extra ? ` | ${extra}` : '' })
    },
    stop() {
      bar.stop()
    },
  }
}
