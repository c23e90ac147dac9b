import { defineConfig } from 'vite';
import { fuzzbox } from './src/vite/index.js';

// The offline demo, built into demo-dist/ with the app recipe of docs/BROWSER.md: the `fuzzbox/vite`
// plugin (here from source) puts the prebuilt worker at its root with the demo's files listed for
// an offline start, and `vite --config vite.demo.config.ts` serves the same worker with hot reload.
export default defineConfig({
  root: 'demo',
  base: './',
  build: {
    outDir: '../demo-dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  preview: { port: 4173 },
  plugins: [fuzzbox()],
});
