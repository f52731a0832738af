/**
 * Turns the first SIGINT (Ctrl-C) into an abort signal, so a command can stop between batches and
 * report what it did; a second SIGINT exits at once with 130.
 * @returns the signal, and a function that removes the handler.
 */
export function onInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const handler = () => {
    if (controller.signal.aborted) process.exit(130)
    controller.abort()
  }
  process.on('SIGINT', handler)
  return { signal: controller.signal, dispose: () => process.off('SIGINT', handler) }
}
