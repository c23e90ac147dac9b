#!/usr/bin/env node
// `npm run bench`: runs every benchmark in bench/ in a fixed order, one process each,
// so one benchmark's garbage and JIT state never colour another's figures.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const order = ['engine', 'formats', 'service', 'learn', 'autopilot', 'lemonade', 'family', 'learning-cost', 'browser', 'scale', 'server', 'sync', 'hold'];
const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(`machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
for (const name of order) {
  const file = `bench/${name}.bench.ts`;
  if (!existsSync(file)) continue;
  console.log(`\n## ${name}`);
  execFileSync('npx', ['tsx', file], { stdio: 'inherit' });
}
