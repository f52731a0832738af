import { defineConfig } from 'vite'

// The browser page: page/ in, dist/ out, served by the demo server.
export default defineConfig({
  root: 'page',
  // Two pages: the bytes side by side (index.html) and the countries app (app.html).
  build: { outDir: '../dist', emptyOutDir: true, target: 'es2022', rollupOptions: { input: { main: 'page/index.html', app: 'page/app.html' } } },
})
