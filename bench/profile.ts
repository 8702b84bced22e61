/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --cpu-prof`): where
 * the gateway's CPU time goes, by package or source module and by function, self and inclusive.
 *
 *   node dist/bench/profile.js bench/results/raw/profiles/<file>.cpuprofile
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled milliseconds, idle excluded. */
  busyMs: number;
  byArea: { area: string; selfPct: number }[];
  topSelf: { fn: string; where: string; selfPct: number }[];
  topInclusive: { fn: string; where: string; inclusivePct: number }[];
}

/** Which package or part of the gateway a frame belongs to. */
export function areaOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native/builtin)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:'))
    return url
      .split('/')
      .slice(0, 2)
      .join('/')
      .replace(/^node:internal\/.*/, 'node:internal');
  const src = url.indexOf('/src/');
  if (src >= 0)
    return `gateway ${url
      .slice(src + 1)
      .split('/')
      .slice(0, 3)
      .join('/')
      .replace(/\.js$/, '')}`;
  return url.split('/').slice(-2).join('/');
}

const pct = (v: number, total: number) => Math.round((v / total) * 1000) / 10;

export function summarizeProfile(file: string, top = 20): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });

  const key = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'}\t${n.callFrame.url}:${n.callFrame.lineNumber + 1}`;
  let busy = 0;
  const area = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const fnIncl = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') continue;
    busy += us;
    const a = areaOf(n.callFrame.url, n.callFrame.functionName);
    area.set(a, (area.get(a) ?? 0) + us);
    fnSelf.set(key(n), (fnSelf.get(key(n)) ?? 0) + us);
    // Inclusive: every distinct function on the stack gets the sample once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = key(byId.get(cur)!);
      if (seen.has(k) || k.startsWith('(root)')) continue;
      seen.add(k);
      fnIncl.set(k, (fnIncl.get(k) ?? 0) + us);
    }
  }
  const split = (k: string) => {
    const [fn, where] = k.split('\t');
    return { fn, where: where.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/') };
  };
  return {
    busyMs: Math.round(busy / 1000),
    byArea: [...area]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([a, us]) => ({ area: a, selfPct: pct(us, busy) })),
    topSelf: [...fnSelf]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ ...split(k), selfPct: pct(us, busy) })),
    topInclusive: [...fnIncl]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ ...split(k), inclusivePct: pct(us, busy) })),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile.js <file.cpuprofile>\n');
    process.exit(2);
  }
  const s = summarizeProfile(file, Number(process.argv[3] ?? 25));
  process.stdout.write(`busy ${s.busyMs} ms\n\nself time by area\n`);
  for (const a of s.byArea) process.stdout.write(`  ${String(a.selfPct).padStart(5)}%  ${a.area}\n`);
  process.stdout.write('\ntop functions, self\n');
  for (const f of s.topSelf)
    process.stdout.write(`  ${String(f.selfPct).padStart(5)}%  ${f.fn}  ${f.where}\n`);
  process.stdout.write('\ntop functions, inclusive\n');
  for (const f of s.topInclusive)
    process.stdout.write(`  ${String(f.inclusivePct).padStart(5)}%  ${f.fn}  ${f.where}\n`);
}
