import { defineConfig } from 'vite';

// The prebuilt worker, dist/fuzzbox-sw.js: one classic script with everything bundled (engine,
// handler, Dexie, zod), because a classic worker cannot import and an app should only copy a file.
export default defineConfig({
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    copyPublicDir: false,
    sourcemap: true,
    minify: true,
    target: 'es2022',
    lib: {
      entry: 'src/sw/worker.ts',
      formats: ['iife'],
      name: 'fuzzboxWorker',
      fileName: () => 'fuzzbox-sw.js',
    },
  },
});
