import { compileAgent } from './src/engine/index.js';
import { banditPlayer, bestFixedPlayer, linearBanditPlayer, oraclePlayer, play, staticPlayer } from './test/learn/arena.js';
import { randomWorld } from './test/learn/family.js';
for (let s = 1; s <= 200; s++) compileAgent(randomWorld(s).agent);
const N = 1200;
const last = (r: any) => r.served.slice(N - 240).reduce((a: number, b: number) => a + b, 0) / 2;
for (let s = 1; s <= 12; s++) {
  const w = randomWorld(s);
  const k = Object.keys(w.agent.inputs).length;
  const buckets = [6, 4, 3, 2][k - 1]!;
  const st = last(await play(w, staticPlayer(w), N, 1));
  const or = last(await play(w, oraclePlayer(w), N, 1));
  const bf = last(await play(w, bestFixedPlayer(w, 1, N), N, 1));
  const ucb = last(await play(w, banditPlayer(w, { levels: Object.keys(w.agent.outputs).length > 1 ? 5 : 10, buckets, c: 0.35, greedy: 'mean' }), N, 1));
  const lin = last(await play(w, linearBanditPlayer(w, { levels: Object.keys(w.agent.outputs).length > 1 ? 5 : 10, alpha: 1 }), N, 1));
  console.log(s, JSON.stringify(w.traits), 'static', st.toFixed(0), 'oracle', or.toFixed(0), 'fixed', bf.toFixed(0), 'ucb', ucb.toFixed(0), 'lin', lin.toFixed(0));
}
