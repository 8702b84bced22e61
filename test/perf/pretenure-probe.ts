/**
 * Child of test/perf/v8-flags.test.ts: does V8 pretenure an allocation site whose objects survive
 * young collections? With an argument, the gateway's V8 settings are imported first, as
 * src/server.ts imports them. Prints how much the young generation grew while 100,000 new objects
 * of that site were allocated (and held) after the site had been seen to survive: pretenured, they
 * go to the old generation instead. (The old generation's own figure moves with concurrent sweeping
 * after the training's garbage, by tens of MB either way; the young one does not.)
 *
 *   node --expose-gc --import tsx test/perf/pretenure-probe.ts [with-settings]
 */
import { getHeapSpaceStatistics } from 'node:v8';

if (process.argv[2]) await import('../../src/v8-flags.js');
const gc = (globalThis as { gc?: (o?: { type: 'minor' | 'major'; execution?: 'sync' }) => void }).gc!;
const make = (i: number) => ({ i, a: null, b: null });
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;

// Every object of the site survives its young collection, 30 times over.
for (let round = 0; round < 30; round++) {
  const kept = [];
  for (let i = 0; i < 200_000; i++) kept.push(make(i));
  gc({ type: 'minor' });
}
gc({ type: 'major', execution: 'sync' });
gc({ type: 'minor' });
const before = young();
const held = [];
for (let i = 0; i < 100_000; i++) held.push(make(i));
console.log(JSON.stringify({ youngGrew: young() - before, held: held.length }));
