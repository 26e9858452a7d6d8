// Vite builds the page into dist/ with relative asset paths, so the server can serve it at /
// (or under any prefix). `npm run dev` proxies the API, the websocket and the meshes to a
// running `sixdof serve` (SIXDOF_URL, default http://127.0.0.1:8000).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const backend = process.env.SIXDOF_URL || 'http://127.0.0.1:8000';

export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
    // two pages: the lab (index.html) and the lecturer's view (class/index.html, at /class/)
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        class: fileURLToPath(new URL('./class/index.html', import.meta.url)),
      },
    },
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': backend,
      '/meshes': backend,
      // the server accepts a browser's websocket only from its own origin: say we are it
      '/ws': {
        target: backend.replace(/^http/, 'ws'),
        ws: true,
        changeOrigin: true,
        configure: (proxy) => proxy.on('proxyReqWs', (req) => req.setHeader('origin', backend)),
      },
    },
  },
});
