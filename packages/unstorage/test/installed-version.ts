// The version of a package this package's tests import, read from where they import it (so an
// npm: alias gives the version it stands for), for test names and the peer-range check to stay true.
import { readFileSync } from 'node:fs'

/** The `version` of `node_modules/<name>` under packages/unstorage. */
export function installedVersion(name: string): string {
  const manifest = new URL(`../node_modules/${name}/package.json`, import.meta.url)
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}
