import { defineConfig } from 'tsup'

export default defineConfig({
  // The SHA-256 files are entries of their own: the package's `#sha256` import condition picks one
  // at load time (node:crypto on Node and Bun, WebCrypto elsewhere), so `#sha256` stays external.
  entry: { index: 'src/index.ts', 'sha256-node': 'src/platform/sha256-node.ts', 'sha256-web': 'src/platform/sha256-web.ts' },
  external: ['#sha256'],
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
})
