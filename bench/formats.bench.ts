// Model-file readers against a linear scan of the same bytes: for each generated worst case
// (bench/formats-worst-cases.ts) at 64 KiB and at the 1 MiB body limit, the reader's time divided
// by the time of one pass that looks at every character. A linear reader keeps the same ratio at
// both sizes; a quadratic one would be 16× worse at 1 MiB.

import { readModel, FormatError, type ModelFormat } from '../src/formats/index.js';
import { readRule } from '../src/formats/model.js';
import { MIB, worstCases } from './formats-worst-cases.js';

let sink = 0;

/** The best of `runs` timings of `run`, in milliseconds. */
function best(run: () => void, runs = 5): number {
  let fastest = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

/** One pass over every character: the linear yardstick. */
function scan(text: string): void {
  for (let i = 0; i < text.length; i++) sink += text.charCodeAt(i);
}

console.log('| reader | worst case | 64 KiB: ms (× scan) | 1 MiB: ms (× scan) |');
console.log('|---|---|---|---|');
for (const worst of worstCases) {
  const cells = [64 * 1024, MIB].map((bytes) => {
    const text = worst.make(bytes);
    const read = () => {
      try {
        if (worst.format === 'rule') readRule(text, 1);
        else readModel(worst.format as ModelFormat, text);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink++;
      }
    };
    const reader = best(read);
    const yardstick = best(() => scan(text));
    return `${reader.toFixed(1)} (${(reader / yardstick).toFixed(0)}×)`;
  });
  console.log(`| ${worst.format.toUpperCase()} | ${worst.name} | ${cells.join(' | ')} |`);
}
if (sink === -1) console.log(sink);
