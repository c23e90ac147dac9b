import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';

// The offline demo, built into demo-dist/ with the prebuilt worker at its root (so its scope
// covers the page) and offline-files.json: the list of files the worker caches to start offline.
export default defineConfig({
  root: 'demo',
  base: './',
  build: {
    outDir: '../demo-dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  preview: { port: 4173 },
  plugins: [offlineDemo()],
});

function offlineDemo(): Plugin {
  return {
    name: 'fuzzbox-offline-demo',
    apply: 'build',
    generateBundle(_, bundle) {
      const files = new Set(['./', 'index.html', ...Object.keys(bundle).filter((file) => !file.endsWith('.map'))]);
      this.emitFile({ type: 'asset', fileName: 'offline-files.json', source: JSON.stringify([...files], null, 1) });
      this.emitFile({ type: 'asset', fileName: 'fuzzbox-sw.js', source: readFileSync('dist/fuzzbox-sw.js') });
    },
  };
}
