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
    // `vite --config vite.demo.config.ts` (with hot reload) serves the built worker too; nothing
    // is cached for offline use there, since dev files change all the time.
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const path = request.url?.split('?')[0];
        if (path === '/fuzzbox-sw.js') response.setHeader('Content-Type', 'text/javascript').end(readFileSync('dist/fuzzbox-sw.js'));
        else if (path === '/offline-files.json') response.setHeader('Content-Type', 'application/json').end('[]');
        else next();
      });
    },
    generateBundle(_, bundle) {
      const files = new Set(['./', 'index.html', ...Object.keys(bundle).filter((file) => !file.endsWith('.map'))]);
      this.emitFile({ type: 'asset', fileName: 'offline-files.json', source: JSON.stringify([...files], null, 1) });
      for (const file of ['fuzzbox-sw.js', 'fuzzbox-sw.js.map']) {
        this.emitFile({ type: 'asset', fileName: file, source: readFileSync(`dist/${file}`) });
      }
    },
  };
}
