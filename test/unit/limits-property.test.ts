import fc from 'fast-check';
import {
  buildSchema,
  type DocumentNode,
  execute,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLTypeResolver,
  getNamedType,
  getOperationAST,
  isAbstractType,
  isEnumType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  validate,
  visit,
} from 'graphql';
import { expect, test } from 'vitest';
import { measureRequest } from '../../src/graphql/limits.js';
import { typeDefs } from '../../src/graphql/schema.js';
import { DEFAULT_PAGE_SIZE } from '../../src/pagination/connection.js';

/**
 * Property: over random GraphQL documents on the real SDL (fragments spreading fragments, inline
 * fragments, aliases, page sizes as literals, variables, variable defaults and omitted, introspection,
 * nesting), the limit walk visits each selection of the document at most once, and the cost it
 * computes is at least the number of nodes the response can hold.
 *
 * "Can hold" is measured, not modelled: the document runs on graphql-js against resolvers that fill
 * every connection to its page size (as graphql-js coerces it, variable defaults included) and every
 * other list with one item; introspection runs for real. The nodes are the connection items and the
 * introspection list items. `FUZZ_SEED` replays a run.
 */
const schema = buildSchema(typeDefs);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

const isConnection = (f: GraphQLField<unknown, unknown>) =>
  getNamedType(f.type).name.endsWith('Connection') &&
  f.args.some((a) => a.name === 'first' || a.name === 'last');

/** A required argument the generator can fill with a literal, or undefined. */
function literalFor(typeName: string): string | undefined {
  if (typeName === 'ID' || typeName === 'String') return '"x"';
  const t = schema.getType(typeName);
  return t && isEnumType(t) ? t.getValues()[0].name : undefined;
}

const MAX_DEPTH = 4;
const typeNames = Object.keys(schema.getTypeMap());

/** Builds one document (and the variables sent with it) from fast-check's generator. */
function buildDocument(g: fc.GeneratorValue): { text: string; variables: Record<string, unknown> } {
  let aliases = 0;
  let varCount = 0;
  const varDefs: string[] = [];
  const variables: Record<string, unknown> = {};
  const fragments: { name: string; on: string; text: string }[] = [];
  const nat = (max: number) => g(fc.nat, { max });
  const pick = <T>(xs: readonly T[]): T => xs[nat(xs.length - 1)];

  // At most one large page per document (omitted: the default 100, or 120 sent) keeps execution
  // small; 120 is above the default, so a walk that read the raw variables would undercount it.
  let largePages = 0;
  const pageArgs = (): string => {
    const arg = nat(2) === 0 ? 'last' : 'first';
    const large = nat(3) === 0 && largePages++ === 0;
    const n = large ? 120 : nat(3);
    const v = `v${varCount}`;
    switch (nat(5)) {
      case 0:
        return large ? '' : `(${arg}: ${n})`;
      case 1:
        return `(${arg}: ${n})`;
      case 2:
        varCount++;
        varDefs.push(`$${v}: Int`);
        variables[v] = n;
        return `(${arg}: $${v})`;
      case 3:
        varCount++;
        varDefs.push(`$${v}: Int = ${n}`);
        return `(${arg}: $${v})`;
      case 4:
        varCount++;
        varDefs.push(`$${v}: Int = ${3 - n}`);
        variables[v] = n;
        return `(${arg}: $${v})`;
      default:
        varCount++;
        varDefs.push(`$${v}: Int = ${n}`);
        variables[v] = n;
        return `(${arg}: $${v})`;
    }
  };

  const fieldsOf = (t: GraphQLNamedType, root: boolean) => {
    if (!isObjectType(t) && !isInterfaceType(t)) return [];
    const own = Object.values(t.getFields())
      .filter((f) => f.args.every((a) => !isNonNullType(a.type) || literalFor(getNamedType(a.type).name)))
      .map((f) => f.name);
    return root ? [...own, '__schema', '__type', '__typename'] : [...own, '__typename'];
  };

  const field = (type: GraphQLNamedType, depth: number): string => {
    const root = type === schema.getQueryType() && depth === 0;
    let names = fieldsOf(type, root);
    if (depth >= MAX_DEPTH)
      names = names.filter(
        (n) =>
          n === '__typename' || isLeafType(getNamedType((type as GraphQLObjectType).getFields()[n]?.type)),
      );
    const name = pick(names.length ? names : ['__typename']);
    if (name === '__typename') return nat(3) === 0 ? `t${aliases++}: __typename` : '__typename';
    if (name === '__schema' || name === '__type') {
      // Introspection roots carry an `intro` alias, so the response shows where they are.
      const args = name === '__type' ? `(name: "${pick(typeNames)}")` : '';
      const t = name === '__type' ? '__Type' : '__Schema';
      return `intro${aliases++}: ${name}${args} { ${selectionSet(schema.getType(t)!, depth + 1)} }`;
    }
    const def = (type as GraphQLObjectType).getFields()[name];
    let args = '';
    if (isConnection(def)) args = pageArgs();
    const required = def.args
      .filter((a) => isNonNullType(a.type))
      .map((a) => `${a.name}: ${literalFor(getNamedType(a.type).name)}`);
    if (required.length) args = `(${required.join(', ')})`;
    // Unique aliases keep fields with different arguments from clashing when merged.
    const alias = args || nat(3) === 0 ? `a${aliases++}: ` : '';
    const named = getNamedType(def.type);
    const sub = isLeafType(named) ? '' : ` { ${selectionSet(named, depth + 1)} }`;
    return `${alias}${name}${args}${sub}`;
  };

  const inline = (type: GraphQLNamedType, depth: number): string => {
    let on = type;
    if (isAbstractType(type)) on = pick(schema.getPossibleTypes(type));
    else if (isObjectType(type) && nat(2) === 0) on = pick([type, ...type.getInterfaces()]);
    const cond = on === type && nat(2) === 0 ? '' : ` on ${on.name}`;
    return `...${cond} { ${selectionSet(on, depth)} }`;
  };

  const spread = (type: GraphQLNamedType, depth: number): string => {
    const existing = fragments.filter((f) => f.on === type.name);
    if (existing.length && nat(3) > 0) return `...${pick(existing).name}`;
    const name = `F${fragments.length}_${nat(99)}`;
    // Built before it is listed, so it can only spread fragments made earlier: no cycles.
    const body = selectionSet(type, depth);
    fragments.push({ name, on: type.name, text: `fragment ${name} on ${type.name} { ${body} }` });
    return `...${name}`;
  };

  function selectionSet(type: GraphQLNamedType, depth: number): string {
    const out: string[] = [];
    const n = 1 + nat(2);
    for (let i = 0; i < n; i++) {
      const r = nat(9);
      if (isAbstractType(type) && r < 5) out.push(nat(2) ? '__typename' : inline(type, depth));
      else if (r < 5 || depth >= MAX_DEPTH) out.push(field(type, depth));
      else if (r < 7) out.push(inline(type, depth));
      else out.push(spread(type, depth));
    }
    // The same fragment spread twice in a row is what makes expansions exponential.
    if (nat(3) === 0) {
      const s = out.find((x) => x.startsWith('...F'));
      if (s) out.push(s, s);
    }
    return out.join(' ');
  }

  const body = selectionSet(schema.getQueryType()!, 0);
  const head = varDefs.length ? `query(${varDefs.join(', ')})` : 'query';
  return { text: [`${head} { ${body} }`, ...fragments.map((f) => f.text)].join('\n'), variables };
}

/** Fields, inline fragments and spreads written in the document. */
function selections(doc: DocumentNode): number {
  let n = 0;
  visit(doc, { Field: () => void n++, InlineFragment: () => void n++, FragmentSpread: () => void n++ });
  return n;
}

/** Runs the document against resolvers that fill every page; returns the nodes the response held. */
function fullestResponse(doc: DocumentNode, variables: Record<string, unknown>, budget: number) {
  let connectionItems = 0;
  const fieldResolver: GraphQLFieldResolver<any, unknown> = (source, args, _ctx, info) => {
    const def = info.parentType.getFields()[info.fieldName];
    const named = getNamedType(info.returnType);
    if (isConnection(def)) {
      const size = (args.first ?? args.last ?? DEFAULT_PAGE_SIZE) as number;
      connectionItems += size;
      // A cost below the truth would let this run away; stop as soon as it is proven wrong.
      if (connectionItems > budget) throw new Error(`over budget: ${connectionItems} > ${budget}`);
      return { size };
    }
    const type = isNonNullType(info.returnType) ? info.returnType.ofType : info.returnType;
    const value = () => (isLeafType(named) ? scalar(named) : {});
    if (isListType(type)) {
      const n = info.fieldName === 'edges' || info.fieldName === 'nodes' ? (source.size as number) : 1;
      return Array.from({ length: n }, value);
    }
    return value();
  };
  const typeResolver: GraphQLTypeResolver<unknown, unknown> = (_v, _c, _i, abstract) =>
    schema.getPossibleTypes(abstract)[0].name;
  const result = execute({
    schema,
    document: doc,
    variableValues: variables,
    fieldResolver,
    typeResolver,
    rootValue: {},
  });
  if ('then' in result) throw new Error('execution is synchronous here');
  let introspectionItems = 0;
  const count = (v: unknown) => {
    if (Array.isArray(v)) {
      introspectionItems += v.length;
      v.forEach(count);
    } else if (v && typeof v === 'object') Object.values(v).forEach(count);
  };
  for (const [key, v] of Object.entries(result.data ?? {})) if (key.startsWith('intro')) count(v);
  return { nodes: connectionItems + introspectionItems, errors: result.errors ?? [] };
}

function scalar(t: GraphQLNamedType): unknown {
  if (isEnumType(t)) return t.getValues()[0].value;
  return (
    (
      {
        ID: 'id',
        String: 's',
        Int: 1,
        Float: 1.5,
        Boolean: true,
        Date: '2026-01-01',
        DateTime: '2026-01-01T00:00:00.000Z',
      } as Record<string, unknown>
    )[t.name] ?? {}
  );
}

test('the limit walk is linear in the document and its cost bounds the response', () => {
  let checked = 0;
  fc.assert(
    fc.property(fc.gen(), (g) => {
      const { text, variables } = buildDocument(g);
      const doc = parse(text, { noLocation: true });
      fc.pre(validate(schema, doc).length === 0);
      checked++;
      const m = measureRequest(schema, doc, getOperationAST(doc)!, variables);
      expect(m.steps, text).toBeLessThanOrEqual(selections(doc));
      const r = fullestResponse(doc, variables, m.cost);
      expect(
        r.errors.map((e) => e.message),
        text,
      ).toEqual([]);
      expect(m.cost, text).toBeGreaterThanOrEqual(r.nodes);
    }),
    { numRuns: 400, seed },
  );
  // Most generated documents are valid, so the property is not vacuous.
  expect(checked).toBeGreaterThan(300);
  // 400 documents, each also run on graphql-js with every page full: seconds on a busy machine.
}, 180_000);
