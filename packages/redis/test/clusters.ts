// The test cluster (started by global-setup.ts) through both clients, ioredis and node-redis, for
// tests that check keys with braces in every position on a real cluster.
import { Cluster } from 'ioredis'
import { createCluster } from 'redis'
import { inject } from 'vitest'

/** Clients of the test cluster: ioredis's `Cluster`, ready, and node-redis's, connected. */
export async function connectClusters(): Promise<{ cluster: Cluster; nodeCluster: ReturnType<typeof createCluster> }> {
  const cluster = new Cluster(inject('clusterNodes'))
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', resolve)
    cluster.once('error', reject)
  })
  const nodeCluster = createCluster({ rootNodes: inject('clusterNodes').map(({ host, port }) => ({ url: `redis://${host}:${port}` })) })
  await nodeCluster.connect()
  return { cluster, nodeCluster }
}
