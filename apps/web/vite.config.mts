import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
/** Where the gateway runs during `vite` (dev server): it proxies the API and the socket there. */
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  resolve: {
    alias: {
      '@dominoes/protocol': resolve(root, 'libs/protocol/src/index.ts'),
      '@dominoes/rules': resolve(root, 'libs/rules/src/index.ts'),
    },
  },
  build: {
    outDir: resolve(here, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Production publishes no source maps (the gateway would serve them to anyone).
    sourcemap: false,
    // One bundle of ~430 kB (~135 kB gzipped): React, zod (the protocol's schemas) and the page.
    chunkSizeWarningLimit: 1024,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: gateway, changeOrigin: true },
      '/ws': { target: gateway.replace(/^http/, 'ws'), ws: true, changeOrigin: true },
    },
  },
});
