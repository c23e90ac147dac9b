// Worst cases for the model-file readers and the rule reader, each generated to a given size (up to
// the 1 MiB body limit): the shapes that made a backtracking or rescanning reader slow (long digit
// runs, unclosed comments, long lines, many terms, many separators, deep nesting). Shared by the
// operation-count test (test/formats/linear.test.ts) and the bench (bench/formats.bench.ts).

export const MIB = 1024 * 1024;

export interface WorstCase {
  readonly format: 'fcl' | 'fll' | 'fis' | 'rule';
  readonly name: string;
  /** a text of at most `bytes` characters (all ASCII), and at least 90% of that */
  make(bytes: number): string;
}

/** `head`, then `unit` repeated to fill `bytes` (less `tail`), then `tail`. */
function filled(bytes: number, head: string, unit: string, tail = ''): string {
  return head + unit.repeat(Math.floor((bytes - head.length - tail.length) / unit.length)) + tail;
}

const FIS_HEAD =
  "[System]\nName='t'\n[Input1]\nName='x'\nRange=[0 1]\nMF1='a':'trimf',[0 0.5 1]\n[Output1]\nName='y'\nRange=[0 1]\nMF1='b':'trimf',[0 0.5 1]\n[Rules]\n";
const FCL_HEAD = 'FUNCTION_BLOCK b\nVAR_INPUT\nx : REAL;\nEND_VAR\nVAR_OUTPUT\ny : REAL;\nEND_VAR\n';
const FLL_HEAD = 'Engine: e\nInputVariable: x\n  range: 0 1\n';

export const worstCases: readonly WorstCase[] = [
  { format: 'fis', name: 'one rule row of digits and a stray character', make: (n) => filled(n, `${FIS_HEAD}1, `, '1', 'x (1) : 1\n') },
  { format: 'fis', name: 'many rule rows of 28 digits and a stray character', make: (n) => filled(n, FIS_HEAD, `1, ${'1'.repeat(28)}x (1) : 1\n`) },
  { format: 'fis', name: 'one section header line', make: (n) => filled(n, '[System]\n[', 'Input1', '\n') },
  { format: 'fis', name: 'many unclosed section headers', make: (n) => filled(n, '', '[Input1\n') },
  { format: 'fis', name: 'one line without "="', make: (n) => filled(n, '[System]\n', 'a', '\n') },
  { format: 'fis', name: 'one MF of many parameters', make: (n) => filled(n, "[System]\n[Input1]\nName='x'\nMF1='a':'discretemf',[", '0 1 ', ']\n') },
  { format: 'fcl', name: 'an unclosed (* comment', make: (n) => filled(n, 'FUNCTION_BLOCK b\n(* ', 'x') },
  { format: 'fcl', name: 'an unclosed /* comment after many closed ones', make: (n) => filled(n, 'FUNCTION_BLOCK b\n', '(* *) ', '/*') },
  { format: 'fcl', name: 'many ramp terms', make: (n) => filled(n, `${FCL_HEAD}FUZZIFY x\n`, 'TERM t := Ramp 0 1;\n') },
  { format: 'fcl', name: 'one point list of many points', make: (n) => filled(n, `${FCL_HEAD}FUZZIFY x\nTERM t := `, '(0, 0) ', ';\n') },
  { format: 'fcl', name: 'one line of separators', make: (n) => filled(n, FCL_HEAD, ';') },
  { format: 'fcl', name: 'one statement of many words', make: (n) => filled(n, `${FCL_HEAD}RULEBLOCK r\n`, 'AND ') },
  { format: 'fcl', name: 'one long rule', make: (n) => filled(n, `${FCL_HEAD}RULEBLOCK r\nRULE 1 : IF `, 'x IS a AND ', 'x IS a THEN y IS b;\n') },
  { format: 'fll', name: 'one line without a colon', make: (n) => filled(n, FLL_HEAD, 'a') },
  { format: 'fll', name: 'many comment lines', make: (n) => filled(n, FLL_HEAD, '# comment: term x\n') },
  { format: 'fll', name: 'one Discrete term of many points', make: (n) => filled(n, `${FLL_HEAD}  term: d Discrete `, '0 0 ', '1 1\n') },
  { format: 'fll', name: 'many terms', make: (n) => filled(n, FLL_HEAD, '  term: t Ramp 0 1\n') },
  { format: 'fll', name: 'many colons on one line', make: (n) => filled(n, `${FLL_HEAD}  description`, ':') },
  { format: 'rule', name: 'a long chain of conditions', make: (n) => filled(n, 'if ', 'x is a and ', 'x is a then y is b') },
  { format: 'rule', name: 'deep parentheses', make: (n) => filled(n, 'if ', '(', 'x is a then y is b') },
  { format: 'rule', name: 'an unclosed quoted name of escapes', make: (n) => filled(n, 'if x is "', '\\"') },
];
