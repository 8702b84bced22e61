import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isoString } from '../db/timestamps.js';
import { isRealDate } from '../modules/properties/index.js';

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

/**
 * An ISO 8601 date-time, the RFC 3339 profile, anchored at both ends: a calendar date, optionally a
 * time (`T` or a space, seconds and fraction optional) with `Z` or a `±HH:MM` offset. Only ASCII
 * digits (no `u` flag). Without the end anchor, `new Date()` read anything after the date its own
 * way (a trailing NUL, say), and it rolls impossible dates over (2023-02-30 became March 2).
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|([+-])(\d{2}):(\d{2}))?)?$/;

const SHAPE = 'DateTime must be an ISO 8601 date-time, such as 2026-03-01T12:00:00.000Z';
const YEARS = 'DateTime must be in the years 0001 to 9999 (UTC)';

/**
 * Reads a DateTime: ISO 8601 as above, in the years 0001–9999 once converted to UTC. JavaScript
 * accepts dates up to the year 275760 that Postgres cannot compare with, which surfaced as an
 * internal error. A date alone is its midnight, and a time without an offset is UTC (not the
 * server's zone): the API's times are all UTC. Fractions finer than a millisecond are cut, as
 * `Date` keeps milliseconds.
 */
function parseDateTime(v: unknown): Date {
  const m = typeof v === 'string' ? ISO_DATE_TIME.exec(v) : null;
  if (!m) throw new GraphQLError(SHAPE);
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone, sign, oh = '0', om = '0'] = m;
  const day = `${y}-${mo}-${d}`;
  if (y === '0000') throw new GraphQLError(YEARS);
  if (!isRealDate(day)) throw new GraphQLError(`DateTime must be a real calendar date; ${day} is not`);
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59)
    throw new GraphQLError('DateTime must have hours 00–23, minutes 00–59 and seconds 00–59');
  if (zone && (Number(oh) > 23 || Number(om) > 59))
    throw new GraphQLError('DateTime must have an offset from -23:59 to +23:59');
  const t = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  t.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  t.setUTCHours(Number(h), Number(mi), Number(sec), Number(frac.slice(0, 3).padEnd(3, '0')));
  const offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const utc = new Date(t.getTime() - offsetMinutes * 60_000);
  const year = utc.getUTCFullYear();
  if (year < 1 || year > 9999) throw new GraphQLError(YEARS);
  return utc;
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
