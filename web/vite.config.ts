import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** Built by scripts/build-console.ts into dist/web, which the API process serves at `/`. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    // Chromium, Firefox and Safari support modulepreload: no polyfill (it would be one more script).
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/sources': 'http://127.0.0.1:8080', '/items': 'http://127.0.0.1:8080', '/iocs': 'http://127.0.0.1:8080' } },
});
