// The whole recipe: the plugin puts fuzzbox's worker into the build, with the app's files listed
// so that the app starts offline too.
import { defineConfig } from 'vite';
import fuzzbox from 'fuzzbox/vite';

export default defineConfig({
  plugins: [fuzzbox()],
});
