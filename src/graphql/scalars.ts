import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
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

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(v as string).toISOString()),
  parseValue: (v) => {
    const d = new Date(v as string);
    if (typeof v !== 'string' || Number.isNaN(d.getTime()))
      throw new GraphQLError('DateTime must be an ISO 8601 string');
    return d;
  },
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING || Number.isNaN(new Date(node.value).getTime()))
      throw new GraphQLError('DateTime must be an ISO 8601 string');
    return new Date(node.value);
  },
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
