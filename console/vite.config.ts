import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The client's source in this checkout (not whatever node_modules/@chronos/client links to).
const client = fileURLToPath(new URL('../client/src/index.ts', import.meta.url));

// Served at the API's origin (the local gateway; CloudFront on AWS): absolute asset paths from /.
export default defineConfig({
  base: '/',
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@chronos/client': client } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The bundle budget (≤ 250 KB gzipped on first load) is checked by console/test/bundle-size.test.ts.
    chunkSizeWarningLimit: 1024,
  },
});
