/// <reference types="node" />
// `fuzzbox/vite`: puts fuzzbox's prebuilt worker into an app's build with the app's files listed
// for an offline start (Workbox's precache manifest, with a revision for each file), so the app
// only registers it: `registerFuzzyWorker(import.meta.env.BASE_URL + 'fuzzbox-sw.js')`.
// It runs in Node, inside Vite's config; the manifest comes from the bundle Vite just made, plus
// the public directory, rather than from workbox-build (docs/BROWSER.md says why).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin, ResolvedConfig } from 'vite';

/** The worker's file name at the root of the build, so its scope covers the whole app. */
export const workerFileName = 'fuzzbox-sw.js';

export interface FuzzboxPluginOptions {
  /** Which of the built files to keep for an offline start, by their path in the build; default all but source maps. */
  offline?: (file: string) => boolean;
}

/** One file of Workbox's precache manifest: a URL relative to the worker, and a revision of its content. */
export interface OfflineEntry {
  url: string;
  revision: string;
}

export function fuzzbox(options: FuzzboxPluginOptions = {}): Plugin {
  const keep = options.offline ?? ((file: string) => !file.endsWith('.map'));
  let config: ResolvedConfig;

  return {
    name: 'fuzzbox',
    configResolved(resolved) {
      config = resolved;
    },
    // The dev server answers the REST interface with the same worker; it keeps no files offline,
    // since dev files change all the time.
    configureServer(server) {
      const path = server.config.base + workerFileName; // the dev server's base is always absolute
      server.middlewares.use((request, response, next) => {
        if (request.url?.split('?')[0] !== path) return next();
        response.setHeader('Content-Type', 'text/javascript; charset=utf-8');
        response.end(withOfflineFiles(prebuiltWorker().code, []));
      });
    },
    // After Vite's own plugins have emitted the pages (index.html).
    generateBundle: {
      order: 'post',
      handler(_, bundle) {
        if (config.build.ssr) return;
        const files = new Map<string, string | Uint8Array>();
        for (const output of Object.values(bundle)) {
          files.set(output.fileName, output.type === 'chunk' ? output.code : output.source);
        }
        for (const file of publicFiles(config)) if (!files.has(file)) files.set(file, readFileSync(join(config.publicDir, file)));
        files.delete(workerFileName);
        files.delete(`${workerFileName}.map`);
        const manifest = [...files].filter(([file]) => keep(file)).map(([url, content]) => ({ url, revision: revision(content) }));

        const worker = prebuiltWorker();
        this.emitFile({ type: 'asset', fileName: workerFileName, source: withOfflineFiles(worker.code, manifest) });
        // One line more at the top: the map's mappings start with one empty line more.
        const map = JSON.parse(worker.map) as { mappings: string };
        map.mappings = `;${map.mappings}`;
        this.emitFile({ type: 'asset', fileName: `${workerFileName}.map`, source: JSON.stringify(map) });
      },
    },
  };
}

export default fuzzbox;

/** The manifest goes on a line of its own before the worker, where the worker reads it (`self.__WB_MANIFEST`). */
function withOfflineFiles(worker: string, manifest: OfflineEntry[]): string {
  return `self.__WB_MANIFEST = ${JSON.stringify(manifest)};\n${worker}`;
}

function prebuiltWorker(): { code: string; map: string } {
  // The package's own export, found the way an app finds it: works from the repository and from node_modules.
  const file = fileURLToPath(import.meta.resolve('fuzzbox/fuzzbox-sw.js'));
  if (!existsSync(file)) throw new Error(`fuzzbox/vite: the prebuilt worker ${file} is missing; build fuzzbox first (npm run build).`);
  return { code: readFileSync(file, 'utf8'), map: readFileSync(`${file}.map`, 'utf8') };
}

function revision(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 20);
}

/** The files Vite copies from the public directory into the build, as paths in the build. */
function publicFiles(config: ResolvedConfig): string[] {
  if (!config.publicDir || !config.build.copyPublicDir || !existsSync(config.publicDir)) return [];
  return readdirSync(config.publicDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(config.publicDir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}
