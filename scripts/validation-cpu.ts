/**
 * CPU that graphql-js spends validating documents that are cheap to send, against the real schema,
 * next to the CPU of the text check (checkQueryText) that answers before it on /graphql and on the
 * WebSocket.
 *
 *   npx tsx scripts/validation-cpu.ts [runs]
 *
 * For each document: its size; the median CPU of parse + validate (every specified rule) and what
 * validation says; what the Executor's limits say of the operation; the pairs that
 * OverlappingFieldsCanBeMerged compares at least (fields sharing a response name, and fragment
 * spreads, in one selection set); and the median CPU and verdict of the text check. Medians over
 * `runs` runs (default 9), after three warm-ups.
 */
import {
  type DocumentNode,
  getOperationAST,
  Kind,
  parse,
  type SelectionSetNode,
  specifiedRules,
  validate,
  visit,
} from 'graphql';
import { checkQueryText } from '../src/graphql/input-limits.js';
import { DEFAULT_LIMITS, enforceMeasured, measureOperation } from '../src/graphql/limits.js';
import { buildSchema } from '../src/graphql/schema.js';

const runs = Number(process.argv[2] ?? 9);
const times = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');

/** Documents cheap to send: each within the byte, token and nesting limits. */
const abuseDocuments: Record<string, string> = {
  'aliases: 1,600 conflicting, under two user fields': `{viewer{user{${times(800, (i) => (i % 2 ? 'a:id' : 'a:name'))}}user{${times(800, (i) => (i % 2 ? 'a:name' : 'a:id'))}}}}`,
  'aliases: 1,600 distinct': `{viewer{user{${times(1600, (i) => `a${i}:id`)}}}}`,
  'same field 1,990 times': `{viewer{user{${times(1990, () => 'id')}}}}`,
  'same field with a sub-selection, 990 times': `{viewer{${times(990, () => 'user{id}')}}}`,
  'same field, differing arguments, 540 times': `{viewer{organizations{${times(540, (i) => `portfolio(id:"${i}"){id}`)}}}}`,
  'same field, differing sub-selections, 990 times': `{viewer{${times(990, (i) => (i % 2 ? 'user{id}' : 'user{name}'))}}}`,
  '500 fragments spread in one selection': `{viewer{user{${times(500, (i) => `...F${i}`)}}}} ${times(500, (i) => `fragment F${i} on User{id}`)}`,
  '440 fragments, conflicting': `{viewer{user{${times(440, (i) => `...F${i}`)}}}} ${times(440, (i) => `fragment F${i} on User{a:${i % 2 ? 'id' : 'name'}}`)}`,
  'one fragment spread 2,000 times': `{viewer{user{${times(2000, () => '...F')}}}} fragment F on User{id}`,
  'fragments spreading the next twice, 24 deep': `query{viewer{...V0}} ${times(24, (i) => `fragment V${i} on Viewer{...V${i + 1} ...V${i + 1}}`)} fragment V24 on Viewer{user{id}}`,
  // Valid, and within every limit of the Executor.
  'same field with a sub-selection, 400 times': `{viewer{${times(400, () => 'user{id}')}}}`,
  'same field with a sub-selection, 100 times': `{viewer{${times(100, () => 'user{id}')}}}`,
  'same field and arguments, 300 times': `{viewer{organizations{${times(300, () => 'portfolio(id:"1"){id}')}}}}`,
  '440 fragments, alike': `{viewer{user{${times(440, (i) => `...F${i}`)}}}} ${times(440, (i) => `fragment F${i} on User{id}`)}`,
  '100 fragments, alike': `{viewer{user{${times(100, (i) => `...F${i}`)}}}} ${times(100, (i) => `fragment F${i} on User{id}`)}`,
};

/** Pairs compared at least: fields sharing a response name in one selection set, and fragment spreads. */
function pairs(doc: DocumentNode): number {
  const c2 = (n: number) => (n * (n - 1)) / 2;
  let total = 0;
  const collect = (set: SelectionSetNode, names: Map<string, number>, spreads: Set<string>) => {
    for (const sel of set.selections)
      if (sel.kind === Kind.FIELD) {
        const name = sel.alias?.value ?? sel.name.value;
        names.set(name, (names.get(name) ?? 0) + 1);
      } else if (sel.kind === Kind.FRAGMENT_SPREAD) spreads.add(sel.name.value);
      else collect(sel.selectionSet, names, spreads);
  };
  visit(doc, {
    SelectionSet(set, _key, parent) {
      if (parent && 'kind' in parent && parent.kind === Kind.INLINE_FRAGMENT) return;
      const names = new Map<string, number>();
      const spreads = new Set<string>();
      collect(set, names, spreads);
      for (const n of names.values()) total += c2(n);
      total += c2(spreads.size);
    },
  });
  return total;
}

const cpuMs = (f: () => void) => {
  const start = process.cpuUsage();
  f();
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sample = (f: () => void) => {
  for (let i = 0; i < 3; i++) f();
  return median(Array.from({ length: runs }, () => cpuMs(f)));
};
const verdict = (f: () => void) => {
  try {
    f();
    return 'passes';
  } catch (e) {
    return e instanceof Error ? e.message.slice(0, 70) : String(e);
  }
};

const schema = buildSchema();
const rows = [];
for (const [name, text] of Object.entries(abuseDocuments)) {
  const doc = parse(text, { maxTokens: DEFAULT_LIMITS.maxTokens });
  const errors = validate(schema, doc, specifiedRules);
  const op = getOperationAST(doc)!;
  rows.push({
    document: name,
    bytes: Buffer.byteLength(text),
    'validate ms': sample(() => validate(schema, parse(text), specifiedRules)).toFixed(1),
    validation: errors.length ? errors[0].message.slice(0, 40) : 'valid',
    Executor: verdict(() => enforceMeasured(DEFAULT_LIMITS, measureOperation(schema, doc, op, {}))).slice(
      0,
      40,
    ),
    pairs: pairs(doc),
    'check ms': sample(() => verdict(() => checkQueryText(text, DEFAULT_LIMITS))).toFixed(2),
    check: verdict(() => checkQueryText(text, DEFAULT_LIMITS)),
  });
}
console.table(rows);
