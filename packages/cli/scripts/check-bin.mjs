// The packed package's binary works: what `npm i -g @stowage/cli` would install. arethetypeswrong
// does not apply (the package has no types and no importable entry, only a bin), so this checks
// instead: the tarball holds the bin, with its shebang and executable bit, and `stowage --version`
// run from the extracted tarball answers with the package's version. The extracted copy sits
// inside this package so that its dependencies resolve from this package's node_modules.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const packDir = mkdtempSync(join(tmpdir(), 'stowage-cli-pack-'))
const extracted = join(root, '.pack-check')
try {
  execFileSync('pnpm', ['pack', '--pack-destination', packDir], { cwd: root, stdio: 'ignore' })
  const tarball = join(packDir, `stowage-cli-${pkg.version}.tgz`)
  rmSync(extracted, { recursive: true, force: true })
  mkdirSync(extracted)
  execFileSync('tar', ['-xzf', tarball, '-C', extracted])
  const bin = join(extracted, 'package', pkg.bin.stowage)
  const failures = []
  if (!readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')) failures.push(`${pkg.bin.stowage} does not start with #!/usr/bin/env node`)
  if ((statSync(bin).mode & 0o111) === 0) failures.push(`${pkg.bin.stowage} is not executable`)
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()
  if (version !== pkg.version) failures.push(`stowage --version says ${version}, not ${pkg.version}`)
  const packed = JSON.parse(readFileSync(join(extracted, 'package', 'package.json'), 'utf8'))
  for (const [name, range] of Object.entries(packed.dependencies)) if (/^(workspace|catalog):/.test(range)) failures.push(`dependency ${name} is still ${range} in the tarball`)
  if (failures.length) {
    console.error(failures.map((f) => `check-bin: ${f}`).join('\n'))
    process.exitCode = 1
  } else console.log(`check-bin: the packed stowage ${version} runs (${Object.keys(packed.dependencies).join(', ')})`)
} finally {
  rmSync(extracted, { recursive: true, force: true })
  rmSync(packDir, { recursive: true, force: true })
}
