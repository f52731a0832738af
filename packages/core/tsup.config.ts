import { defineConfig } from 'tsup'

export default defineConfig({
  // The platform files are entries of their own: the package's `#platform` import condition picks
  // one at load time (native zlib on Node, fflate elsewhere), so `#platform` stays external.
  // `otel` is the `./otel` subpath: the only file that imports the optional peer @opentelemetry/api.
  entry: { index: 'src/index.ts', otel: 'src/otel/index.ts', 'platform-node': 'src/codec/platform/node.ts', 'platform-portable': 'src/codec/platform/portable.ts' },
  external: ['#platform', '@opentelemetry/api'],
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', otel: 'src/otel/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
})
