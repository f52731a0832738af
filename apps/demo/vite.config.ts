import { defineConfig } from 'vite'

// The browser page: page/ in, dist/ out, served by the demo server.
export default defineConfig({
  root: 'page',
  build: { outDir: '../dist', emptyOutDir: true, target: 'es2022' },
})
