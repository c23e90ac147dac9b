// Every model-file reader is linear in its input. The inputs that froze the service (a FIS rule row
// that backtracked exponentially, 12,000 FCL ramp terms, an unclosed comment, a 100 KB header line)
// are read to a FormatError; and, for generated worst cases up to the 1 MiB body limit, the work the
// scanning primitives do (characters visited, `readerWork`) is bounded by a constant times the
// bytes, the same constant at 16 KiB as at 1 MiB. No timing: `npm run bench` times them
// (bench/formats.bench.ts) against a linear scan of the same bytes.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError, readModel, type ModelFormat } from '../../src/formats/index.js';
import { readRule } from '../../src/formats/model.js';
import { readerWork } from '../../src/formats/scan.js';
import { worstCases, MIB } from '../../bench/formats-worst-cases.js';
import { refusal } from '../support/refusal.js';
import { sharedText } from '../support/shared.js';

/** The reader's work on `text`, and what it threw (only a FormatError may be thrown). */
function work(read: () => unknown): number {
  readerWork.steps = 0;
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
  }
  return readerWork.steps;
}

describe('the inputs that froze the service are refused at once', () => {
  it('a FIS rule row of 30 digits and a stray character (exponential backtracking before)', () => {
    const fis = `[System]\nName='t'\n[Input1]\nName='x'\nRange=[0 1]\nMF1='a':'trimf',[0 0.5 1]\n[Output1]\nName='y'\nRange=[0 1]\nMF1='b':'trimf',[0 0.5 1]\n[Rules]\n1, ${'1'.repeat(30)}x (1) : 1\n`;
    expect(fis.length).toBeLessThan(200);
    expect(refusal('fis', fis)).toMatchObject({ line: 12, construct: 'rule' });
  });

  it('12,000 FCL ramp terms stop at the 101st, naming its line', () => {
    const terms = Array.from({ length: 12_000 }, (_, i) => `TERM t${i} := Ramp ${i} ${i + 1};`).join('\n');
    const fcl = `FUNCTION_BLOCK b\nVAR_INPUT\nx : REAL;\nEND_VAR\nFUZZIFY x\n${terms}\nEND_FUZZIFY\nEND_FUNCTION_BLOCK\n`;
    expect(refusal('fcl', fcl)).toMatchObject({ line: 106, construct: 'term limit' });
  });

  it('an unclosed comment is refused at the line it opens on', () => {
    for (const opener of ['(*', '/*']) {
      const fcl = `FUNCTION_BLOCK b\n${opener} ${'x'.repeat(360_000)}\n`;
      expect(refusal('fcl', fcl)).toMatchObject({ line: 2, construct: `comment ${opener}` });
    }
  });

  it('a FIS section header line of 100 KB', () => {
    expect(refusal('fis', `[System]\n[${'Input1'.repeat(17_000)}\n`)).toMatchObject({ line: 2, construct: 'section' });
    expect(refusal('fis', `[System]\n[Input${'1'.repeat(100_000)}x]\n`)).toMatchObject({ line: 2, construct: 'section' });
  });
});

describe('misleading errors (reader crashes) are FormatErrors naming the line', () => {
  it('END_RULEBLOCK without RULEBLOCK', () => {
    const error = refusal('fcl', 'FUNCTION_BLOCK b\nEND_RULEBLOCK\n');
    expect(error).toMatchObject({ line: 2, construct: 'END_RULEBLOCK' });
    expect(error.message).toBe('line 2: END_RULEBLOCK without RULEBLOCK before it');
  });

  it('files with CR-only line ends read as with LF, every format', () => {
    for (const [format, path] of [
      ['fcl', 'fuzzylite-examples/mamdani/SimpleDimmer.fcl'],
      ['fll', 'fuzzylite-examples/mamdani/SimpleDimmer.fll'],
      ['fis', 'fuzzylite-examples/mamdani/SimpleDimmer.fis'],
    ] as const) {
      const text = sharedText(path).replace(/\r?\n/g, '\n');
      expect(readModel(format, text.replace(/\n/g, '\r')), format).toEqual(readModel(format, text));
      expect(readModel(format, text.replace(/\n/g, '\r\n')), format).toEqual(readModel(format, text));
    }
    // and lines are counted at lone CRs too
    expect(refusal('fcl', 'FUNCTION_BLOCK b\r\rEND_RULEBLOCK\r')).toMatchObject({ line: 3 });
  });
});

describe('work bounded by the bytes (operation count, not time)', () => {
  /** characters visited per byte of input: a linear scan is 1 */
  const LIMIT = 8;
  for (const worst of worstCases) {
    it(`${worst.format}: ${worst.name}`, () => {
      const perByte = [16 * 1024, MIB].map((bytes) => {
        const text = worst.make(bytes);
        expect(text.length).toBeLessThanOrEqual(bytes);
        expect(text.length).toBeGreaterThan(bytes * 0.9);
        const read = worst.format === 'rule' ? () => readRule(text, 1) : () => readModel(worst.format as ModelFormat, text);
        return work(read) / text.length;
      });
      expect(perByte[1]).toBeLessThanOrEqual(LIMIT);
      // the same constant at 1 MiB as at 16 KiB: nothing grows with the size
      expect(perByte[1]).toBeLessThanOrEqual(perByte[0]! * 1.25 + 0.05);
    });
  }

  it('mutated corpus files: only FormatErrors, and work bounded by the bytes', () => {
    const files = (['fll', 'fcl', 'fis'] as const).map((format) => [format, sharedText(`fuzzylite-examples/mamdani/matlab/tipper.${format}`)] as const);
    fc.assert(
      fc.property(
        fc.constantFrom(...files),
        fc.integer({ min: 0, max: 4000 }),
        fc.string({ maxLength: 40 }),
        fc.integer({ min: 1, max: 2000 }),
        ([format, text], at, insert, repeat) => {
          const mutated = text.slice(0, at) + insert.repeat(repeat) + text.slice(at + insert.length);
          expect(work(() => readModel(format, mutated))).toBeLessThanOrEqual(LIMIT * mutated.length + 1000);
        },
      ),
      { numRuns: 300 },
    );
  });
});
