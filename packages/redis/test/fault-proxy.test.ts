// The fault proxy the network-fault tests run through (tools/fault-proxy) keeps a connection's
// bytes in order, as a real network does: a chunk delayed by a latency since lowered is still
// delivered before the chunks sent after it. (It once was not: a GET overtook a delayed SET.)
import { startFaultProxy } from '@stowage/fault-proxy'
import { createConnection, createServer, type Socket } from 'node:net'
import { expect, it } from 'vitest'

it('delivers a connection’s chunks in the order they were sent when the latency drops between them', async () => {
  let received = ''
  const sockets: Socket[] = []
  const target = createServer((socket) => {
    sockets.push(socket)
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (received += chunk))
  })
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
  const proxy = await startFaultProxy((target.address() as { port: number }).port)
  const client = createConnection({ port: proxy.port, host: '127.0.0.1' })
  try {
    await new Promise<void>((resolve) => client.once('connect', resolve))
    proxy.latency(300)
    client.write('first;')
    await new Promise((resolve) => setTimeout(resolve, 50))
    proxy.latency(0)
    client.write('second;')
    await expect.poll(() => received, { timeout: 5_000 }).toBe('first;second;')
  } finally {
    client.destroy()
    for (const socket of sockets) socket.destroy()
    await proxy.close()
    await new Promise((resolve) => target.close(resolve))
  }
})
