import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isoString } from '../db/timestamps.js';
import { isRealDate } from '../modules/properties/date.js';

function literalToJson(node: ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => literalToJson(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalToJson(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    default:
      return undefined;
  }
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: literalToJson,
});

/** An ISO 8601 date-time starts with a four-digit year: `+275760-…` and `-000001-…` do not. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}/;

/**
 * Reads a DateTime: ISO 8601, in the years 0001–9999 once converted to UTC. JavaScript accepts
 * dates up to the year 275760 that Postgres cannot compare with, which surfaced as an internal error.
 */
function parseDateTime(v: unknown): Date {
  const d = typeof v === 'string' && ISO_DATE_TIME.test(v) ? new Date(v) : undefined;
  if (!d || Number.isNaN(d.getTime()))
    throw new GraphQLError('DateTime must be an ISO 8601 string, such as 2026-03-01T12:00:00.000Z');
  const year = d.getUTCFullYear();
  if (year < 1 || year > 9999) throw new GraphQLError('DateTime must be in the years 0001 to 9999 (UTC)');
  return d;
}

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (v) => (v instanceof Date ? isoString(v) : new Date(v as string).toISOString()),
  parseValue: parseDateTime,
  parseLiteral: (node) => parseDateTime(node.kind === Kind.STRING ? node.value : undefined),
});

export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: (v) => v,
  parseValue: (v) => {
    if (typeof v !== 'string' || !isRealDate(v))
      throw new GraphQLError('Date must be a calendar date, YYYY-MM-DD');
    return v;
  },
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING || !isRealDate(node.value))
      throw new GraphQLError('Date must be a calendar date, YYYY-MM-DD');
    return node.value;
  },
});
