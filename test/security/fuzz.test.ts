import fc from 'fast-check';
import { sql } from 'kysely';
import type { RecordKind } from '../../src/db/types.js';
import { AppError } from '../../src/errors.js';
import { createPortfolio } from '../../src/modules/org/repository.js';
import { MAX_TEXT_LENGTH } from '../../src/modules/properties/text.js';
import { bulkInsertRecords } from '../../src/modules/records/repository.js';
import { validateProperties } from '../../src/modules/records/validate.js';
import type { NewProperty } from '../../src/modules/schema/repository.js';
import { DEFAULT_PROPERTIES } from '../../src/modules/schema/service.js';
import {
  makeSchema,
  type PropertyDefModel,
  type PropertySchemaModel,
} from '../../src/modules/schema/types.js';
import { DEMO_PROPERTIES } from '../../src/seed/schema.js';
import { describe, expect, type TestEnv, test } from '../helpers/fixtures.js';
import type { Res } from '../helpers/http.js';
import { PLURAL } from '../records-helpers.js';
import { restErrorProblems } from './support.js';

/**
 * Property-based fuzzing with fast-check.
 * (a) validateProperties, over arbitrary JavaScript values and over near-valid property maps for the
 *     demo schemas and for random schemas: it returns changes that satisfy the rules, or throws an
 *     AppError VALIDATION_FAILED with non-empty details, and nothing else.
 * (b) The REST write endpoints (POST/PUT projects and contacts, PUT parcels), driven by fast-check's
 *     model-based commands with random bodies, each value tagged valid or invalid by an oracle written
 *     here: the answer is 200 exactly for valid bodies and a 4xx otherwise, and after every run what
 *     GET (and the database) holds equals an in-test model built from the acknowledged writes only.
 */

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const params = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

// ---------- an independent oracle of the value rules ----------

const isControl = (cp: number) => (cp <= 0x1f && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || cp === 0x7f;
/** Text the rules accept: no C0 control but tab/LF/CR, no DEL, no lone surrogate, at most the limit. */
function textOk(s: string): boolean {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
    else if (isControl(c)) return false;
    n++;
  }
  return n <= MAX_TEXT_LENGTH;
}

const MEMBER: Record<string, string> = {
  text: 'text',
  url: 'text',
  email: 'text',
  number: 'number',
  date: 'date',
  select: 'select',
  multi_select: 'select',
  people: 'people',
};

/** One value object with what it should do: `stores` a value, `clears`, or is refused (`ok: false`). */
interface Gen {
  value: unknown;
  ok: boolean;
  /** The stored value (labels dropped, multi_select deduplicated), or null when it clears. */
  expect?: unknown;
}

const validDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const textArb = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), weight: 4 },
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    "'; drop table projects; --",
    '$.a[*] ? (@ > 1)',
    '{"$ne":null}',
    "\\' OR 1=1",
    '\t\r\n',
    ' ',
  ),
);

/** A value object for `def`, tagged with what the rules make of it. */
function valueArb(
  def: PropertyDefModel,
  users: string[],
  foreignUser: string,
  invalidWeight = 1,
): fc.Arbitrary<Gen> {
  const member = MEMBER[def.type];
  const ok = (value: unknown, expect: unknown): Gen => ({ value, ok: true, expect });
  const bad = (value: unknown): Gen => ({ value, ok: false });
  const options = def.options.map((o) => o.id);
  const valid: fc.Arbitrary<Gen>[] = [];
  const invalid: fc.Arbitrary<Gen>[] = [
    fc.constantFrom(
      bad('x'),
      bad(1),
      bad(null),
      bad([]),
      bad({}),
      bad({ [member]: null, extra: 1 }),
      bad({ [member === 'text' ? 'number' : 'text']: 'x' }),
      bad({ [member]: null, labels: 'not an array' }),
    ),
    // What travels is JSON: NaN becomes null (a clear) and undefined disappears, so judge the JSON form.
    fc
      .anything()
      .map((v) => JSON.parse(JSON.stringify({ [member]: v })) as Record<string, unknown>)
      .filter((v) => !(member in v) || !acceptable(def, v[member]))
      .map(bad),
  ];
  switch (def.type) {
    case 'text':
      valid.push(
        textArb.map((s) => ({
          value: { text: s },
          ok: textOk(s) && !(def.required && !s.trim()),
          expect: { text: s },
        })),
      );
      invalid.push(fc.constant(bad({ text: 'x'.repeat(MAX_TEXT_LENGTH + 1) })));
      break;
    case 'url':
      valid.push(
        fc
          .tuple(fc.constantFrom('http', 'https'), fc.domain(), fc.webSegment())
          .map(([s, d, p]) => `${s}://${d}/${encodeURIComponent(p)}`)
          .map((u) => ok({ text: u }, { text: u })),
      );
      invalid.push(
        fc
          .constantFrom('ftp://x.example', 'not a url', 'https://', 'javascript:alert(1)', 'http:example.com')
          .map((u) => bad({ text: u })),
      );
      break;
    case 'email':
      valid.push(
        fc
          .emailAddress()
          .filter((e) => e.length <= 254)
          .map((e) => ok({ text: e }, { text: e })),
      );
      invalid.push(
        fc.constantFrom('a@b', 'no-at.example', 'a @b.example', '@b.example').map((e) => bad({ text: e })),
      );
      break;
    case 'number':
      valid.push(
        fc
          .oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer())
          .map((n) => ok({ number: n }, { number: n === 0 ? 0 : n })),
      );
      invalid.push(fc.constantFrom('1', '1e400', true, [1], { value: 1 }).map((n) => bad({ number: n })));
      break;
    case 'date':
      valid.push(validDate.map((d) => ok({ date: { start: d } }, { date: { start: d } })));
      invalid.push(
        fc
          .constantFrom(
            { start: '2023-02-30' },
            { start: '2024-13-01' },
            { start: '20240101' },
            { start: 1 },
            { start: '2024-01-01', end: '2024-01-02' },
            '2024-01-01',
            { start: '0000-01-01' },
          )
          .map((d) => bad({ date: d })),
      );
      break;
    case 'select':
      valid.push(fc.constantFrom(...options).map((o) => ok({ select: [o] }, { select: [o] })));
      invalid.push(
        fc
          .constantFrom([], [options[0], options.at(-1)], ['nope'], options[0], [1])
          .filter((v) => !(Array.isArray(v) && v.length === 2 && v[0] === v[1]))
          .map((v) => bad({ select: v })),
      );
      break;
    case 'multi_select':
      valid.push(
        fc.array(fc.constantFrom(...options), { maxLength: 6 }).map((ids) => {
          const set = [...new Set(ids)];
          return set.length
            ? ok({ select: ids }, { select: set })
            : { value: { select: ids }, ok: !def.required, expect: null };
        }),
      );
      invalid.push(
        fc
          .constantFrom(['nope'], [options[0], 'nope'], options[0], [1], [null])
          .map((v) => bad({ select: v })),
      );
      break;
    case 'people':
      valid.push(fc.constantFrom(...users).map((u) => ok({ people: [u] }, { people: [u] })));
      invalid.push(
        fc
          .constantFrom([], [users[0], users[1]], [foreignUser], ['usr_0000000000000000000000'], [1], [''])
          .map((v) => bad({ people: v })),
      );
      break;
  }
  // Clearing: allowed unless required. A read value sent back (with labels) is accepted too.
  const clear = fc.constant({ value: { [member]: null }, ok: !def.required, expect: null });
  const withLabels = fc
    .oneof({ arbitrary: fc.oneof(...valid), weight: 6 }, { arbitrary: clear, weight: 1 })
    .chain((g) =>
      fc
        .boolean()
        .map((add) =>
          add && g.value && typeof g.value === 'object'
            ? { ...g, value: { ...(g.value as object), labels: ['x'] } }
            : g,
        ),
    );
  return fc.oneof(
    { arbitrary: withLabels, weight: 12 },
    { arbitrary: fc.oneof(...invalid), weight: invalidWeight },
  );
}

/** What the oracle accepts as the inner member of `def` (to keep fc.anything() values honest). */
function acceptable(def: PropertyDefModel, v: unknown): boolean {
  if (v === null) return true;
  switch (def.type) {
    case 'text':
      return typeof v === 'string' && textOk(v) && !(def.required && !v.trim());
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'select':
      return Array.isArray(v) && v.length === 1 && def.options.some((o) => o.id === v[0]);
    case 'multi_select':
      return Array.isArray(v) && v.every((x) => def.options.some((o) => o.id === x));
    case 'people':
      // The validator takes any one non-empty id; membership is the service's check. So a random
      // one-string array is not a sure "bad" value at every layer: leave it out.
      return Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' && v[0] !== '';
    default:
      // url, email, date: fc.anything() never makes a valid one by chance, but say so only for non-strings.
      return typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v));
  }
}

interface BodyGen {
  body: unknown;
  ok: boolean;
  /** The `properties` map alone, and whether it is valid (the envelope aside). */
  properties: Record<string, unknown>;
  propertiesOk: boolean;
  /** Property id → stored value, or null to clear. */
  changes: Record<string, unknown>;
}

/** A request body for `kind`: some schema properties (valid or not), now and then an unknown key or a broken envelope. */
function bodyArb(
  kind: RecordKind,
  defs: PropertyDefModel[],
  mode: 'create' | 'update',
  users: string[],
  foreignUser: string,
): fc.Arbitrary<BodyGen> {
  // Required properties are nearly always sent on create (one body in ten leaves them out).
  const required = defs.filter((d) => d.required);
  const chosenDefs = fc
    .tuple(
      fc.subarray(
        defs.filter((d) => !d.required),
        { maxLength: 4 },
      ),
      fc.integer({ min: 0, max: 9 }),
    )
    .map(([optional, dice]) => (mode === 'create' && dice > 0 ? [...required, ...optional] : optional));
  const entries = fc
    .oneof(chosenDefs, { arbitrary: fc.subarray(defs), weight: 1 })
    .chain((chosen) =>
      fc.tuple(
        fc.constant(chosen),
        fc.tuple(...chosen.map((d) => valueArb(d, users, foreignUser))) as fc.Arbitrary<Gen[]>,
      ),
    );
  const rarely = <T>(arb: fc.Arbitrary<T>, weight: number) =>
    fc.oneof({ arbitrary: fc.constant(null), weight }, { arbitrary: arb, weight: 1 });
  const extra = rarely(
    fc.constantFrom<[string, unknown]>(
      ['no_such_property', { text: 'x' }],
      ['Name', { text: 'x' }],
      ...(kind === 'project'
        ? ([['location', { location: { type: 'Point', coordinates: [0, 0] } }]] as [string, unknown][])
        : []),
    ),
    8,
  );
  const envelope = rarely(fc.constantFrom('extra member', 'properties array', 'not an object'), 15);
  return fc.tuple(entries, extra, envelope).map(([[chosen, gens], more, broken]) => {
    const properties: Record<string, unknown> = {};
    const changes: Record<string, unknown> = {};
    let ok = true;
    chosen.forEach((d, i) => {
      properties[d.id] = gens[i].value;
      changes[d.id] = gens[i].expect;
      ok &&= gens[i].ok;
    });
    if (more) {
      properties[more[0]] = more[1];
      ok = false;
    }
    if (mode === 'create')
      for (const d of defs)
        if (d.required && (changes[d.id] === undefined || changes[d.id] === null)) ok = false;
    let body: unknown = { properties };
    if (broken === 'extra member') body = { properties, extra: 1 };
    if (broken === 'properties array') body = { properties: Object.entries(properties) };
    if (broken === 'not an object') body = Object.keys(properties);
    return { body, ok: ok && !broken, changes, properties, propertiesOk: ok };
  });
}

// ---------- (a) the validator ----------

const toDefs = (props: NewProperty[]): PropertyDefModel[] =>
  props.map((p, i) => ({
    id: p.id,
    name: p.name,
    type: p.type,
    options: p.options ?? [],
    required: !!p.required,
    position: i,
  }));

const DEMO_SCHEMAS = Object.fromEntries(
  (['project', 'parcel', 'contact'] as const).map((k) => [
    k,
    makeSchema('org_demo', k, toDefs([...DEFAULT_PROPERTIES[k], ...DEMO_PROPERTIES[k]])),
  ]),
) as Record<RecordKind, PropertySchemaModel>;

const randomSchema: fc.Arbitrary<PropertySchemaModel> = fc
  .uniqueArray(
    fc.record({
      id: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,10}$/),
      type: fc.constantFrom('text', 'url', 'email', 'number', 'date', 'select', 'multi_select', 'people'),
      required: fc.boolean(),
      options: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 5 }),
    }),
    { selector: (d) => d.id, minLength: 1, maxLength: 8 },
  )
  .map((ds) =>
    makeSchema(
      'org_random',
      'contact',
      ds.map((d, i) => ({
        id: d.id,
        name: d.id,
        type: d.type as PropertyDefModel['type'],
        options: d.type.includes('select')
          ? d.options.map((o) => ({ id: o, name: o, color: '#000000' }))
          : [],
        required: d.required,
        position: i,
      })),
    ),
  );

/** Runs the validator and returns what is wrong with its behaviour (empty when it did right). */
function validatorProblems(
  kind: RecordKind,
  schema: PropertySchemaModel,
  input: unknown,
  mode: 'create' | 'update',
  oracle?: BodyGen,
): string[] {
  let changes: ReturnType<typeof validateProperties>;
  try {
    changes = validateProperties(kind, schema, input, mode);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'VALIDATION_FAILED') return [`threw ${String(e)}`];
    if (!e.details?.length) return ['VALIDATION_FAILED without details'];
    if (
      !e.details.every(
        (d) =>
          typeof d.reason === 'string' && d.reason && (d.field === undefined || typeof d.field === 'string'),
      )
    )
      return [`malformed details ${JSON.stringify(e.details)}`];
    return oracle?.ok ? [`refused a valid body: ${JSON.stringify(e.details)}`] : [];
  }
  const out: string[] = [];
  if (oracle && !oracle.ok) out.push('accepted an invalid body');
  const set = Object.entries(changes.set);
  for (const [id, v] of set) {
    const def = schema.byId.get(id);
    if (!def) out.push(`stores unknown property ${id}`);
    if (kind === 'project' && id === 'location') out.push('stores location');
    if (def && Object.keys(v).join() !== MEMBER[def.type])
      out.push(`${id}: stored shape ${JSON.stringify(v)}`);
    // A stored value is itself valid input and validates to the same value.
    if (def) {
      const again = validateProperties(kind, schema, { [id]: v }, 'update');
      if (JSON.stringify(again.set[id]) !== JSON.stringify(v)) out.push(`${id}: not idempotent`);
    }
  }
  for (const id of changes.clear) {
    if (id in changes.set) out.push(`${id} both set and cleared`);
    if (schema.byId.get(id)?.required) out.push(`clears required ${id}`);
  }
  if (mode === 'create')
    for (const d of schema.properties)
      if (d.required && !(d.id in changes.set)) out.push(`create without required ${d.id}`);
  if (oracle?.ok) {
    const want = Object.fromEntries(Object.entries(oracle.changes).filter(([, v]) => v !== null));
    const cleared = Object.entries(oracle.changes)
      .filter(([, v]) => v === null)
      .map(([k]) => k)
      .sort();
    if (JSON.stringify(changes.set) !== JSON.stringify(want))
      out.push(`set ${JSON.stringify(changes.set)} != ${JSON.stringify(want)}`);
    if (JSON.stringify([...changes.clear].sort()) !== JSON.stringify(cleared))
      out.push(`clear ${changes.clear} != ${cleared}`);
  }
  return out;
}

const hostileValue = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

describe('fuzz: validateProperties', () => {
  test('arbitrary values: changes that keep the rules, or VALIDATION_FAILED with details, nothing else', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<RecordKind>('project', 'parcel', 'contact'),
        fc.constantFrom<'create' | 'update'>('create', 'update'),
        fc.oneof(
          hostileValue,
          fc.dictionary(fc.string(), hostileValue),
          fc.dictionary(
            fc.constantFrom(
              'name',
              'first_name',
              'stage',
              'owner',
              'cod',
              'capacity_mw',
              'location',
              '__proto__',
            ),
            hostileValue,
          ),
        ),
        (kind, mode, input) => {
          expect(validatorProblems(kind, DEMO_SCHEMAS[kind], input, mode)).toEqual([]);
        },
      ),
      params(500),
    );
  });

  test('near-valid maps for the demo schemas: accepted exactly when the oracle says so, with the oracle’s changes', () => {
    const users = ['usr_alice', 'usr_bob'];
    const arb = fc
      .tuple(
        fc.constantFrom<RecordKind>('project', 'parcel', 'contact'),
        fc.constantFrom<'create' | 'update'>('create', 'update'),
      )
      .chain(([kind, mode]) =>
        fc.tuple(
          fc.constant(kind),
          fc.constant(mode),
          bodyArb(kind, DEMO_SCHEMAS[kind].properties, mode, users, 'usr_nora'),
        ),
      );
    fc.assert(
      fc.property(arb, ([kind, mode, b]) => {
        // People are checked against the org by the service, not here: a user of no org passes the validator.
        const text = JSON.stringify(b.properties);
        const oracle =
          text.includes('usr_nora') || text.includes('usr_0000') ? undefined : { ...b, ok: b.propertiesOk };
        expect(validatorProblems(kind, DEMO_SCHEMAS[kind], b.properties, mode, oracle)).toEqual([]);
      }),
      params(500),
    );
  });

  test('one property at a time, half of them invalid: accepted exactly when the oracle says so', () => {
    const users = ['usr_alice', 'usr_bob'];
    const arb = fc
      .constantFrom(
        ...(['project', 'parcel', 'contact'] as const).flatMap((k) =>
          DEMO_SCHEMAS[k].properties.map((d) => [k, d] as const),
        ),
      )
      .chain(([kind, def]) =>
        fc.tuple(fc.constant(kind), fc.constant(def), valueArb(def, users, 'usr_nora', 12)),
      );
    fc.assert(
      fc.property(arb, ([kind, def, g]) => {
        const text = JSON.stringify(g.value ?? null);
        const oracle =
          text.includes('usr_nora') || text.includes('usr_0000')
            ? undefined
            : { body: null, ok: g.ok, propertiesOk: g.ok, properties: {}, changes: { [def.id]: g.expect } };
        expect(validatorProblems(kind, DEMO_SCHEMAS[kind], { [def.id]: g.value }, 'update', oracle)).toEqual(
          [],
        );
      }),
      params(500),
    );
  });

  test('random schemas: the same, whatever the property ids, types, options and required flags', () => {
    const arb = randomSchema.chain((schema) =>
      fc.tuple(
        fc.constant(schema),
        fc.constantFrom<'create' | 'update'>('create', 'update'),
        fc.oneof(
          hostileValue,
          fc.dictionary(fc.constantFrom(...schema.properties.map((d) => d.id), 'x'), hostileValue),
        ),
      ),
    );
    fc.assert(
      fc.property(arb, ([schema, mode, input]) => {
        expect(validatorProblems('contact', schema, input, mode)).toEqual([]);
      }),
      params(200),
    );
  });
});

// ---------- (b) the REST write endpoints against a model ----------

interface ModelRecord {
  kind: RecordKind;
  properties: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

interface Real {
  env: TestEnv;
  /** Answers seen, so the test can prove it exercised both outcomes. */
  seen: Record<'accepted' | 'refused' | 'missing', number>;
  scope: { orgId: string; portfolioId: string };
  defs: Record<RecordKind, PropertyDefModel[]>;
}

type Model = Map<string, ModelRecord>;

/** Properties as REST returns them, without labels, for comparison with the model. */
const stripLabels = (props: Record<string, any>) =>
  Object.fromEntries(
    Object.entries(props).map(([k, v]) => {
      const { labels: _, ...rest } = v ?? {};
      return [k, rest];
    }),
  );

function checkAnswer(real: Real, r: Res, ok: boolean, what: string) {
  real.seen[r.status === 200 ? 'accepted' : 'refused']++;
  expect(r.status, `${what}: ${r.raw.slice(0, 500)}`).toBeLessThan(500);
  if (ok) {
    expect(r.status, `${what} (valid body): ${r.raw.slice(0, 500)}`).toBe(200);
  } else {
    expect(restErrorProblems(r), what).toEqual([]);
    expect(r.status, `${what} (invalid body)`).toBe(400);
  }
}

class CreateCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: 'project' | 'contact',
    readonly gen: BodyGen,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const r = await real.env.as.alice.post(`/${PLURAL[this.kind]}/v1`, this.gen.body, real.scope);
    checkAnswer(real, r, this.gen.ok, this.toString());
    if (r.status === 200) {
      const properties = Object.fromEntries(Object.entries(this.gen.changes).filter(([, v]) => v !== null));
      model.set(r.body.id, {
        kind: this.kind,
        properties,
        createdAt: r.body.created_at,
        updatedAt: r.body.updated_at,
      });
      expect(stripLabels(r.body.properties)).toEqual(properties);
    }
  }
  toString = () => `POST /${PLURAL[this.kind]}/v1 ${JSON.stringify(this.gen.body).slice(0, 300)}`;
}

class UpdateCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: RecordKind,
    readonly pick: number,
    readonly gen: BodyGen,
  ) {}
  private target(model: Model) {
    const ids = [...model.entries()].filter(([, r]) => r.kind === this.kind).map(([id]) => id);
    return ids[this.pick % ids.length];
  }
  check = (model: Readonly<Model>) => [...model.values()].some((r) => r.kind === this.kind);
  async run(model: Model, real: Real) {
    const id = this.target(model);
    const before = model.get(id)!;
    const r = await real.env.as.alice.put(`/${PLURAL[this.kind]}/v1/${id}`, this.gen.body, real.scope);
    checkAnswer(real, r, this.gen.ok, this.toString());
    if (r.status === 200) {
      const properties = { ...before.properties };
      for (const [k, v] of Object.entries(this.gen.changes)) {
        if (v === null) delete properties[k];
        else properties[k] = v;
      }
      expect(r.body.created_at).toBe(before.createdAt);
      expect(
        r.body.updated_at > before.updatedAt,
        `updated_at ${before.updatedAt} → ${r.body.updated_at}`,
      ).toBe(true);
      model.set(id, { ...before, properties, updatedAt: r.body.updated_at });
      expect(stripLabels(r.body.properties)).toEqual(properties);
    }
  }
  toString = () =>
    `PUT /${PLURAL[this.kind]}/v1/#${this.pick} ${JSON.stringify(this.gen.body).slice(0, 300)}`;
}

class UpdateMissingCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: RecordKind) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    const id = `${this.kind === 'project' ? 'prj' : this.kind === 'parcel' ? 'par' : 'con'}_0000000000000000000000`;
    const r = await real.env.as.alice.put(`/${PLURAL[this.kind]}/v1/${id}`, { properties: {} }, real.scope);
    real.seen.missing++;
    expect(r.status).toBe(404);
    expect(restErrorProblems(r)).toEqual([]);
  }
  toString = () => `PUT /${PLURAL[this.kind]}/v1/<absent>`;
}

/** What GET (REST lists, and GraphQL for parcels) and the database hold, against the model. */
async function compareWithModel(real: Real, model: Model) {
  const { env, scope } = real;
  const want = (kind: RecordKind) =>
    Object.fromEntries([...model].filter(([, r]) => r.kind === kind).map(([id, r]) => [id, r.properties]));
  for (const kind of ['project', 'contact'] as const) {
    const r = await env.as.alice.get(`/${PLURAL[kind]}/v1`, { ...scope, limit: '5000' });
    expect(r.status).toBe(200);
    const got = Object.fromEntries(r.body.items.map((i: any) => [i.id, stripLabels(i.properties)]));
    expect(got, `${kind}s listed by GET`).toEqual(want(kind));
  }
  const g = await env.as.alice.gql(
    'query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) { parcels(first: 5000) { nodes { id properties } } } } }',
    { o: scope.orgId, p: scope.portfolioId },
  );
  const parcels = Object.fromEntries(
    g.body.data.organization.portfolio.parcels.nodes.map((n: any) => [n.id, stripLabels(n.properties)]),
  );
  expect(parcels, 'parcels read over GraphQL').toEqual(want('parcel'));
  // The rows themselves: same ids, same properties, and updated_at as last acknowledged.
  for (const kind of ['project', 'contact', 'parcel'] as const) {
    const { rows } = await sql<{ id: string; properties: Record<string, unknown>; updated_at: Date }>`
      select id, properties, updated_at from ${sql.table(PLURAL[kind])}
      where org_id = ${scope.orgId} and portfolio_id = ${scope.portfolioId}`.execute(env.database.db);
    expect(Object.fromEntries(rows.map((x) => [x.id, x.properties])), `${kind} rows`).toEqual(want(kind));
    for (const x of rows)
      expect(x.updated_at.toISOString(), `${kind} ${x.id} updated_at`).toBe(model.get(x.id)!.updatedAt);
  }
}

describe('fuzz: REST writes against a model', () => {
  test('random valid and invalid bodies: 200 exactly for valid ones, 4xx otherwise, and the data equals the model', async ({
    env,
  }) => {
    const db = env.database.db;
    const orgId = env.demo.orgs.A.id;
    const pf = await createPortfolio(db, orgId, 'fuzz');
    const scope = { orgId, portfolioId: pf.id };
    const g = await env.as.alice.gql(
      `query ($o: ID!) { organization(id: $o) {
        project: propertySchema(kind: PROJECT) { properties { id name type required position options { id name color } } }
        contact: propertySchema(kind: CONTACT) { properties { id name type required position options { id name color } } }
        parcel: propertySchema(kind: PARCEL) { properties { id name type required position options { id name color } } } } }`,
      { o: orgId },
    );
    const defs = Object.fromEntries(
      (['project', 'contact', 'parcel'] as const).map((k) => [
        k,
        g.body.data.organization[k].properties.map((p: any) => ({ ...p, type: p.type.toLowerCase() })),
      ]),
    ) as Record<RecordKind, PropertyDefModel[]>;
    const users = (['alice', 'bob', 'vera', 'gina'] as const).map((u) => env.demo.users[u].uid);
    const foreign = env.demo.users.nora.uid;

    // Parcels cannot be created over the API: a few, straight into the database.
    const model: Model = new Map();
    const parcelIds = await bulkInsertRecords(db, 'parcel', orgId, pf.id, [
      { properties: { name: { text: 'fuzz parcel 1' } } },
      { properties: {} },
      { properties: { name: { text: 'fuzz parcel 3' } } },
    ]);
    const { rows } = await sql<{
      id: string;
      properties: Record<string, unknown>;
      created_at: Date;
      updated_at: Date;
    }>`
      select id, properties, created_at, updated_at from parcels where org_id = ${orgId} and id in (${sql.join(parcelIds)})`.execute(
      db,
    );
    for (const r of rows)
      model.set(r.id, {
        kind: 'parcel',
        properties: r.properties,
        createdAt: r.created_at.toISOString(),
        updatedAt: r.updated_at.toISOString(),
      });
    const real: Real = { env, scope, defs, seen: { accepted: 0, refused: 0, missing: 0 } };

    const commands = [
      ...(['project', 'contact'] as const).map((k) =>
        bodyArb(k, defs[k], 'create', users, foreign).map((b) => new CreateCommand(k, b)),
      ),
      ...(['project', 'contact', 'parcel'] as const).map((k) =>
        fc
          .tuple(fc.nat(), bodyArb(k, defs[k], 'update', users, foreign))
          .map(([n, b]) => new UpdateCommand(k, n, b)),
      ),
      fc.constantFrom<RecordKind>('project', 'contact', 'parcel').map((k) => new UpdateMissingCommand(k)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 15 }), async (cmds) => {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await compareWithModel(real, model);
      }),
      params(60),
    );
    // Not vacuous: both kinds of answer, in numbers, and the model holds what was created.
    expect(real.seen.accepted).toBeGreaterThan(50);
    expect(real.seen.refused).toBeGreaterThan(30);
    expect(real.seen.missing).toBeGreaterThan(0);
    expect([...model.values()].filter((r) => r.kind !== 'parcel').length).toBeGreaterThan(5);
  });
});
