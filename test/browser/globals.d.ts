// What test/browser/fixtures/index.html puts on window for the tests to drive.
import type * as client from '../../src/client/index.js';

declare global {
  interface Window {
    fuzzbox: typeof client & { controlledAtStart: boolean };
  }
}
