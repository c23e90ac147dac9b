import { defineConfig } from 'vite';

// The library build: one ESM file per public entry point, dependencies left external
// so an app bundles a single copy of dexie, zod and workbox-window. Workbox's precaching is the
// exception, bundled into fuzzbox/sw in its production form: its development build writes to
// `self` when imported, which would stop fuzzbox/sw from importing outside a worker (in Node).
export default defineConfig({
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    sourcemap: true,
    minify: false,
    target: 'es2022',
    lib: {
      entry: {
        index: 'src/index.ts',
        engine: 'src/engine/index.ts',
        formats: 'src/formats/index.ts',
        sw: 'src/sw/index.ts',
        client: 'src/client/index.ts',
        vite: 'src/vite/index.ts',
        node: 'src/node/index.ts',
        cli: 'src/node/cli.ts',
      },
      formats: ['es'],
    },
    rollupOptions: {
      // `fuzzbox/vite` runs in Node, inside the app's Vite; `fuzzbox/node` and its CLI in Node,
      // with the PostgreSQL clients and the Fetch adapter installed beside them.
      external: [/^dexie/, /^zod/, /^workbox-window/, /^node:/, 'vite', /^pg$/, /^@electric-sql\/pglite/, /^@hono\/node-server/],
      output: {
        // workbox-window's "main" is a UMD bundle that Node cannot import by name; its ES module
        // build works in Node and in every bundler, so `fuzzbox/client` imports anywhere.
        paths: { 'workbox-window': 'workbox-window/build/workbox-window.prod.mjs' },
      },
    },
  },
});
