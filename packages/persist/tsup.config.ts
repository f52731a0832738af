import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { 'tanstack-query': 'src/tanstack-query/index.ts', zustand: 'src/zustand/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
})
