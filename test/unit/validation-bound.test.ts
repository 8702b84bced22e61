import fc from 'fast-check';
import { type GraphQLError, getOperationAST, Kind, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, test } from 'vitest';
import { AppError } from '../../src/errors.js';
import { checkQueryText } from '../../src/graphql/input-limits.js';
import { DEFAULT_LIMITS, type GraphQLLimits, measureOperation } from '../../src/graphql/limits.js';
import { buildSchema } from '../../src/graphql/schema.js';

/**
 * Aliases and fields are bounded before graphql-js validates a document: its
 * OverlappingFieldsCanBeMerged rule compares every pair of fields sharing a response name, so a few
 * kilobytes of aliases cost it tens of milliseconds before the Executor's limits would refuse them.
 * The count from the tokens is the Executor's count (fragments counted wherever they are spread),
 * so it refuses exactly what the Executor would.
 */
const schema = buildSchema();
const times = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');

const refusal = (query: string, limits: GraphQLLimits = DEFAULT_LIMITS): AppError | undefined => {
  try {
    checkQueryText(query, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
};

/** 1,600 conflicting aliases under two `user` fields, as the attack sent them. */
const attack = `{ viewer { user { ${times(800, (i) => (i % 2 ? 'a: id' : 'a: name'))} } user { ${times(800, (i) => (i % 2 ? 'a: name' : 'a: id'))} } } }`;

describe('aliases before validation', () => {
  test('the 1,600-alias document is refused before it is parsed, naming the limit', () => {
    expect(Buffer.byteLength(attack)).toBeLessThan(DEFAULT_LIMITS.maxQueryBytes);
    const e = refusal(attack);
    expect(e?.code).toBe('QUERY_TOO_COMPLEX');
    expect(e?.message).toBe(
      'The query uses 1600 aliases (fragments counted wherever they are spread); the limit is 30.',
    );
  });

  test('refusing it costs well under 5 ms of CPU (median of 9), where validating it costs tens', () => {
    // What the server spends before answering: the text check, and parse + validate if it passes.
    const refuse = () => {
      try {
        checkQueryText(attack, DEFAULT_LIMITS);
      } catch {
        return;
      }
      validate(schema, parse(attack, { maxTokens: DEFAULT_LIMITS.maxTokens }), specifiedRules);
    };
    const cpu: number[] = [];
    for (let i = 0; i < 3; i++) refuse();
    for (let i = 0; i < 9; i++) {
      const start = process.cpuUsage();
      refuse();
      const used = process.cpuUsage(start);
      cpu.push((used.user + used.system) / 1000);
    }
    cpu.sort((a, b) => a - b);
    expect(cpu[4]).toBeLessThan(5);
  });

  test('exactly maxAliases passes, one more is refused; a fragment counts wherever it is spread', () => {
    const aliased = (n: number) => times(n, (i) => `a${i}: id`);
    expect(refusal(`{ viewer { user { ${aliased(30)} } } }`)).toBeUndefined();
    expect(refusal(`{ viewer { user { ${aliased(31)} } } }`)?.message).toMatch(/31 aliases.*limit is 30/);
    const withFragment = (n: number) =>
      `query Q { viewer { user { ${aliased(20)} ...F } } } fragment F on User { ${times(n, (i) => `b${i}: id`)} }`;
    expect(refusal(withFragment(10))).toBeUndefined();
    expect(refusal(withFragment(11))?.message).toMatch(/^The query uses 31 aliases/);
    // Spread twice, through another fragment: 10 + 2 × 10.
    const twice = `query Q { viewer { user { ${aliased(10)} ...G } } }
      fragment G on User { ...F ...F } fragment F on User { ${times(10, (i) => `b${i}: id`)} }`;
    expect(refusal(twice)).toBeUndefined();
    expect(refusal(twice.replace('...F ...F', '...F ... on User { ...F } b: id'))?.message).toMatch(
      /^The query uses 31 aliases/,
    );
  });

  test('colons in arguments, variable definitions, defaults, input objects and directives are not aliases', () => {
    const constant =
      '{ property: { id: "name", text: { eq: "x", contains: "y" } }, not: { createdAt: { from: "2026-01-01T00:00:00Z" } } }';
    const filter =
      '{ property: { id: "name", text: { eq: "x", contains: "y" } }, not: { createdAt: { from: $d } } }';
    const q = `query Q($p: ID!, $d: DateTime = "2026-01-01T00:00:00Z", $n: Int = 5, $f: RecordFilter = ${constant}) {
      node(id: $p) @include(if: true) { id ... on Portfolio @skip(if: false) {
        ${times(8, (i) => `p${i}: projects(first: $n, filter: ${filter}, search: "a:b") { totalCount }`)}
        q: projects(filter: $f) { totalCount } } } }`;
    expect(validate(schema, parse(q))).toEqual([]);
    // 9 aliases, and over a hundred colons inside parentheses.
    expect((q.match(/:/g) ?? []).length).toBeGreaterThan(100);
    expect(refusal(q, { ...DEFAULT_LIMITS, maxAliases: 9 })).toBeUndefined();
    expect(refusal(q, { ...DEFAULT_LIMITS, maxAliases: 8 })?.message).toMatch(/9 aliases/);
  });

  test('every operation of a document is held to the limit; an unused fragment alone', () => {
    const op = (name: string, n: number) =>
      `query ${name} { viewer { user { ${times(n, (i) => `a${i}: id`)} } } }`;
    expect(refusal(`${op('A', 30)} ${op('B', 30)}`)).toBeUndefined();
    expect(refusal(`${op('A', 1)} ${op('B', 31)}`)?.message).toMatch(/^Operation "B" uses 31/);
    // Shared by both operations, a fragment counts toward each.
    const shared = 'fragment S on User { s1: id s2: id }';
    expect(
      refusal(
        `${op('A', 28).replace('} } }', '...S } } }')} ${op('B', 28).replace('} } }', '...S } } }')} ${shared}`,
      ),
    ).toBeUndefined();
    expect(refusal(`${op('A', 29).replace('} } }', '...S } } }')} ${op('B', 1)} ${shared}`)?.message).toMatch(
      /"A" uses 31/,
    );
    expect(refusal(`${op('A', 1)} fragment U on User { ${times(31, (i) => `u${i}: id`)} }`)?.message).toMatch(
      /^Fragment "U" uses 31 aliases/,
    );
  });
});

describe('fields before validation', () => {
  test('exactly maxFields passes, one more is refused', () => {
    // viewer and user are two of the fields.
    expect(refusal(`{ viewer { user { ${times(1998, () => 'id')} } } }`)).toBeUndefined();
    expect(refusal(`{ viewer { user { ${times(1999, () => 'id')} } } }`)?.message).toMatch(
      /^The query selects 2001 fields.*limit is 2000/,
    );
  });

  test('spreads, type conditions and directive names are not fields', () => {
    const q = `query Q { viewer { user { ...F ... on User { id } ... @include(if: true) { name } id @skip(if: false) } } } fragment F on User { email }`;
    expect(refusal(q, { ...DEFAULT_LIMITS, maxFields: 6 })).toBeUndefined();
    expect(refusal(q, { ...DEFAULT_LIMITS, maxFields: 5 })?.message).toMatch(/6 fields/);
  });
});

/**
 * Random valid documents on the real schema, with aliases and colons in every place they can be:
 * the text check with the limits set exactly to the Executor's measure of the operation passes, and
 * with either limit one lower it is refused.
 */
function randomDocument(g: fc.GeneratorValue): string {
  const nat = (max: number) => g(fc.nat, { max });
  const fragments: string[] = [];
  let names = 0;
  const alias = () => (nat(2) === 0 ? `x${names++}: ` : '');
  const directive = () => ['', ' @include(if: true)', ' @skip(if: $off)', ' @include(if: $on)'][nat(3)];
  const filter = () =>
    [
      '$f',
      '{ property: { id: "name", text: { eq: "on: x" } } }',
      '{ not: { createdAt: { from: $d } }, or: [{ property: { id: "a", number: { gt: 1 } } }] }',
    ][nat(2)];
  const user = (): string =>
    times(1 + nat(3), () => {
      const r = nat(5);
      if (r < 3) return `${alias()}${['id', 'name', 'email', 'role', '__typename'][nat(4)]}${directive()}`;
      if (r === 3) return `... on User${directive()} { ${alias()}id }`;
      const name = `U${fragments.length}`;
      // It may spread a fragment made before it (never itself: no cycles), once or twice.
      const inner = fragments.length && nat(1) ? ` ...U${nat(fragments.length - 1)}` : '';
      fragments.push(
        `fragment ${name} on User { ${alias()}name ${alias()}id${inner}${nat(1) ? inner : ''} }`,
      );
      return `...${name}${directive()}${nat(1) ? ` ...${name}` : ''}`;
    });
  // Each choice is built only when picked: a fragment built and not spread would be unused.
  const oneOf = (choices: (() => string)[]) => choices[nat(choices.length - 1)]();
  const portfolio = (): string =>
    times(1 + nat(2), () =>
      oneOf([
        () => `${alias()}id`,
        () => `x${names++}: projects(first: $n, filter: ${filter()}, search: "a: b") { totalCount }`,
        () =>
          `x${names++}: parcels(first: 2, orderBy: [{ property: "name", direction: DESC }]) { totalCount }`,
      ]),
    );
  const organization = (): string =>
    times(1 + nat(2), () =>
      oneOf([
        () => `${alias()}name`,
        () => `${alias()}users { ${user()} }`,
        () => `x${names++}: portfolio(id: "pf_x") { ${portfolio()} }`,
        () => `... on Organization { ${alias()}id }`,
      ]),
    );
  const body = times(1 + nat(2), () =>
    oneOf([
      () => `${alias()}viewer { ${alias()}user { ${user()} } ${alias()}organizations { ${organization()} } }`,
      () => `x${names++}: node(id: "pf_x") { ... on Portfolio { ${portfolio()} } }`,
      () => `x${names++}: organization(id: "org_x")${directive()} { ${organization()} }`,
    ]),
  );
  const vars =
    '$n: Int = 3, $d: DateTime, $on: Boolean = true, $off: Boolean = false, $f: RecordFilter = { property: { id: "x", text: { eq: "y" } } }';
  return [`query Q(${vars}) { ${body} }`, ...fragments].join('\n');
}

test('the text check counts aliases and fields as the Executor does (random valid documents)', () => {
  let checked = 0;
  fc.assert(
    fc.property(fc.gen(), (g) => {
      const text = randomDocument(g);
      const doc = parse(text);
      const errors: readonly GraphQLError[] = validate(schema, doc).filter(
        // Variables a random body does not use are not what this is about.
        (e) => !/^Variable "\$\w+" is never used/.test(e.message),
      );
      fc.pre(errors.length === 0);
      checked++;
      const op = getOperationAST(doc)!;
      expect(op.kind).toBe(Kind.OPERATION_DEFINITION);
      const m = measureOperation(schema, doc, op, {});
      const limits = { ...DEFAULT_LIMITS, maxAliases: m.aliases, maxFields: m.fields };
      expect(refusal(text, limits), text).toBeUndefined();
      // And one below the Executor's count is refused: the counts are the same.
      if (m.aliases > 0)
        expect(refusal(text, { ...limits, maxAliases: m.aliases - 1 })?.message, text).toMatch(
          new RegExp(`^The query uses ${m.aliases} aliases`),
        );
      expect(refusal(text, { ...limits, maxFields: m.fields - 1 })?.message, text).toMatch(
        new RegExp(`^The query selects ${m.fields} fields`),
      );
    }),
    { numRuns: 300 },
  );
  expect(checked).toBeGreaterThan(200);
});
