// Part of `npm run deps:check`: no cycle between the modules of src/modules, taken as wholes.
// dependency-cruiser's own rule sees files; two modules can import each other through files that
// form no cycle of their own, so this folds each module's files into one node and looks again.
import { execFileSync } from 'node:child_process';

const out = execFileSync(
  process.execPath,
  [
    'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
    'src',
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'json',
  ],
  { maxBuffer: 1 << 28, encoding: 'utf8' },
);
const moduleOf = (path) => /^src\/modules\/([^/]+)\//.exec(path)?.[1];
const edges = new Map();
for (const m of JSON.parse(out).modules) {
  const from = moduleOf(m.source);
  if (!from) continue;
  for (const d of m.dependencies) {
    const to = moduleOf(d.resolved);
    if (to && to !== from) edges.set(from, new Set([...(edges.get(from) ?? []), to]));
  }
}

// Depth-first search; a node met again while still on the path closes a cycle.
const state = new Map();
const cycles = [];
const visit = (node, path) => {
  state.set(node, 'open');
  for (const next of edges.get(node) ?? []) {
    if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
    else if (!state.has(next)) visit(next, [...path, next]);
  }
  state.set(node, 'done');
};
for (const node of edges.keys()) if (!state.has(node)) visit(node, [node]);

if (cycles.length) {
  for (const c of cycles) console.error(`module cycle: ${c.join(' → ')}`);
  console.error('Move what both modules need into the lower one, or pass it in as a parameter.');
  process.exit(1);
}
console.log(
  `✔ no cycle between the ${new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]).size} modules of src/modules`,
);
