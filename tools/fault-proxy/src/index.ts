// A TCP proxy between a client and a real server (redis-server in the tests), that can make the
// network misbehave the ways real ones do: latency on every byte, a stall (nothing passes, the
// bytes wait in buffers as TCP keeps them, then flow on when it heals), resets (RST on every
// connection), refusing new connections, and half-open connections (the server side is gone,
// the client side stays open and swallows what is sent: no FIN, no RST, nothing comes back).
import { createConnection, createServer, type Server, type Socket } from 'node:net'

/** How the proxy treats traffic right now. */
export type ProxyMode = 'pass' | 'stall' | 'refuse'

export interface FaultProxy {
  /** The port clients connect to. */
  readonly port: number
  readonly url: string
  /** Connections currently open through the proxy. */
  readonly connections: number
  /** Delay every chunk, both ways, by this many ms (order kept). 0 for none. */
  latency(ms: number): void
  /** `pass`: forward; `stall`: hold every byte until `pass` again; `refuse`: close new connections at once. */
  mode(mode: ProxyMode): void
  /** Resets every open connection (RST to the client, the server side closed). */
  reset(): void
  /** Turns every open connection half-open: the server side closes, the client side hears nothing, ever. */
  halfOpen(): void
  close(): Promise<void>
}

interface Pair {
  readonly client: Socket
  readonly server: Socket
  dead: boolean
}

/**
 * Starts a proxy on a free loopback port in front of `targetPort`.
 * @returns the proxy, passing traffic.
 */
export async function startFaultProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FaultProxy> {
  const pairs = new Set<Pair>()
  // Client sides of half-open connections, kept open until the proxy closes.
  const zombies = new Set<Socket>()
  let delay = 0
  let current: ProxyMode = 'pass'
  const held: Array<() => void> = []

  // The chunks on their way to each socket, in the order they came, each with the time it is due.
  // A chunk never leaves before the ones ahead of it: a connection delivers its bytes in order,
  // whatever the latency did meanwhile (lowering it once let a GET overtake a delayed SET).
  const lanes = new WeakMap<Socket, { queue: Array<{ due: number; send: () => void }>; waiting: boolean }>()
  const drain = (to: Socket) => {
    const lane = lanes.get(to)!
    lane.waiting = false
    while (lane.queue.length > 0) {
      const wait = lane.queue[0]!.due - Date.now()
      if (wait > 0) {
        lane.waiting = true
        setTimeout(() => drain(to), wait)
        return
      }
      lane.queue.shift()!.send()
    }
  }

  // Forwards one chunk, after the latency and the chunks ahead of it, unless stalled (then it
  // waits) or the pair is dead.
  const forward = (pair: Pair, to: Socket, chunk: Buffer) => {
    const send = () => {
      if (pair.dead || to.destroyed) return
      if (current === 'stall') {
        held.push(send)
        return
      }
      to.write(chunk)
    }
    let lane = lanes.get(to)
    if (lane === undefined) lanes.set(to, (lane = { queue: [], waiting: false }))
    lane.queue.push({ due: Date.now() + delay, send })
    if (!lane.waiting) drain(to)
  }

  const server: Server = createServer((client) => {
    if (current === 'refuse') {
      client.resetAndDestroy()
      return
    }
    const upstream = createConnection({ port: targetPort, host: targetHost })
    const pair: Pair = { client, server: upstream, dead: false }
    pairs.add(pair)
    const end = () => {
      pairs.delete(pair)
      if (pair.dead) return // half-open: the client side stays as it is
      client.destroy()
      upstream.destroy()
    }
    client.on('data', (chunk) => forward(pair, upstream, chunk))
    upstream.on('data', (chunk) => forward(pair, client, chunk))
    client.on('error', end)
    upstream.on('error', end)
    client.on('close', end)
    upstream.on('close', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get connections() {
      return pairs.size
    },
    latency(ms) {
      delay = ms
    },
    mode(mode) {
      current = mode
      if (mode !== 'stall') for (const send of held.splice(0)) send()
    },
    reset() {
      for (const pair of [...pairs]) {
        pairs.delete(pair)
        pair.client.resetAndDestroy()
        pair.server.destroy()
      }
    },
    halfOpen() {
      for (const pair of [...pairs]) {
        pair.dead = true
        pairs.delete(pair)
        pair.server.destroy()
        // What the client sends from now on goes nowhere; it never hears a FIN.
        pair.client.removeAllListeners('data')
        pair.client.on('data', () => {})
        zombies.add(pair.client)
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy()
        pair.server.destroy()
      }
      for (const socket of zombies) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
