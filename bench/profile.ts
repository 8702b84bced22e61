/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --cpu-prof`): where
 * the gateway's CPU time goes, by package or source module and by function, self and inclusive.
 *
 *   node dist/bench/profile.js bench/results/raw/profiles/<file>.cpuprofile [top] [skip ms]
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
  /** Samples of the first milliseconds (start-up) were left out. */
  fromMs: number;
  byArea: { area: string; selfPct: number }[];
  /** Self time by stage of a request (see stageOf). */
  byStage: { stage: string; selfPct: number }[];
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

/**
 * The stages of a request, each recognised by its frames. A sample belongs to the stage of the
 * innermost frame that names one; frames that name none (Node's internals such as crypto, native
 * builtins) take the stage of their caller, so JSON.parse of a jsonb column counts as the pg
 * driver's and JSON.stringify of the response as serialization.
 */
const STAGE_RULES: [string, (fn: string, url: string, line: number) => boolean][] = [
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['V8 and runtime, unattributed', (fn) => fn === '(program)'],
  [
    'serialization (JSON.stringify of the result)',
    // Apollo's own, and the gateway's in pieces (src/http/json-bytes.ts), which replaced it.
    (fn, url) => (fn === 'prettyJSONStringify' && /@apollo/.test(url)) || /\/http\/json-bytes\.js$/.test(url),
  ],
  [
    'pg driver (protocol, row and type parsing)',
    (_f, url) =>
      /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-(date|array|bytea|interval))\//.test(url),
  ],
  ['Kysely (building and compiling SQL)', (_f, url) => /node_modules\/kysely\//.test(url)],
  ['DataLoader', (_f, url) => /node_modules\/dataloader\//.test(url)],
  [
    'our resolvers, services, loaders, cursors',
    (_f, url) => /\/(dist\/)?src\/(modules|pagination|context|db)\//.test(url),
  ],
  // Code graphql-jit generates has no URL but a line number; builtins have neither.
  [
    'graphql-jit execution',
    (_f, url, line) => /node_modules\/graphql-jit\//.test(url) || (!url && line >= 0),
  ],
  ['graphql-js (validation, variables)', (_f, url) => /node_modules\/graphql\//.test(url)],
  ['Apollo Server pipeline', (_f, url) => /node_modules\/(@apollo|@as-integrations)\//.test(url)],
  [
    'our HTTP and GraphQL glue (auth, limits, hooks)',
    (_f, url) => /\/(dist\/)?src\/(app|graphql|http|rest)\b/.test(url),
  ],
  [
    'Fastify',
    (_f, url) =>
      /node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|secure-json-parse)\//.test(url),
  ],
  [
    'PostGraphile (Grafast, @dataplan)',
    (_f, url) =>
      /node_modules\/(grafast|grafserv|@dataplan|graphile-[\w-]+|postgraphile|pg-sql2|tamedevil)\//.test(url),
  ],
  ['raw floor (bench/baseline)', (_f, url) => /bench\/baseline\.js$/.test(url)],
  // System calls: on loopback, the kernel's TCP work happens inside them.
  [
    'socket writes (kernel)',
    (fn, url) => !url && (fn === 'writev' || fn === 'writeBuffer' || fn === 'writeUtf8String'),
  ],
  ['socket reads (kernel)', (fn, url) => !url && fn === 'read'],
  [
    'Node HTTP and streams',
    (_f, url) => /^node:(net|_http_\w+|http|internal\/(streams?|http|stream_base_commons))/.test(url),
  ],
];

export function stageOf(stack: CallFrame[]): string {
  for (const f of stack)
    for (const [stage, test] of STAGE_RULES) if (test(f.functionName, f.url, f.lineNumber)) return stage;
  return 'other (event loop, timers, microtasks)';
}

const pct = (v: number, total: number) => Math.round((v / total) * 1000) / 10;

/** Summarizes a profile; `fromMs` leaves out its first milliseconds (the process starting). */
export function summarizeProfile(file: string, top = 20, fromMs = 0): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let at = 0;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    if (at < fromMs * 1000) return;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });

  const key = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'}\t${n.callFrame.url}:${n.callFrame.lineNumber + 1}`;
  let busy = 0;
  const area = new Map<string, number>();
  const stage = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const fnIncl = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') continue;
    busy += us;
    const stack: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      stack.push(byId.get(cur)!.callFrame);
    const st = stageOf(stack);
    stage.set(st, (stage.get(st) ?? 0) + us);
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
    fromMs: Math.round(fromMs),
    byStage: [...stage]
      .sort((a, b) => b[1] - a[1])
      .map(([st, us]) => ({ stage: st, selfPct: pct(us, busy) })),
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
  const s = summarizeProfile(file, Number(process.argv[3] ?? 25), Number(process.argv[4] ?? 0));
  process.stdout.write(
    `busy ${s.busyMs} ms${s.fromMs ? ` (after the first ${s.fromMs} ms)` : ''}\n\nself time by stage\n`,
  );
  for (const a of s.byStage) process.stdout.write(`  ${String(a.selfPct).padStart(5)}%  ${a.stage}\n`);
  process.stdout.write('\nself time by area\n');
  for (const a of s.byArea) process.stdout.write(`  ${String(a.selfPct).padStart(5)}%  ${a.area}\n`);
  process.stdout.write('\ntop functions, self\n');
  for (const f of s.topSelf)
    process.stdout.write(`  ${String(f.selfPct).padStart(5)}%  ${f.fn}  ${f.where}\n`);
  process.stdout.write('\ntop functions, inclusive\n');
  for (const f of s.topInclusive)
    process.stdout.write(`  ${String(f.inclusivePct).padStart(5)}%  ${f.fn}  ${f.where}\n`);
}
