import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served at the API's origin (the local gateway; CloudFront on AWS): absolute asset paths from /.
export default defineConfig({
  base: '/',
  plugins: [react(), tailwindcss()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The bundle budget (≤ 250 KB gzipped on first load) is checked by console/test/bundle-size.test.ts.
    chunkSizeWarningLimit: 1024,
  },
});
