import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isLeafType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { RecordKind } from '../../db/types.js';
import { LIST_FIELDS, type ListName, RECORD_TYPENAME } from '../../modules/records/index.js';
import { UNWRITABLE_KEYS } from './literal.js';

/**
 * A plan for the hot read shape: organization(id) → portfolio(id) → record connections, nested
 * through their links, with ids, timestamps, `properties` and typed values. run.ts answers a planned
 * operation straight from the pages and values, without building graphql-jit's result tree beside
 * them (docs/decisions.md#planned-reads). Any field, argument or directive outside the shape makes
 * the operation unplanned, and the executor runs it as before; so does any surprise at run time.
 */
export interface RootPlan {
  org: ArgField;
  portfolio: ArgField;
  conn: ConnPlan;
}

/** A field whose arguments run.ts reads from the request's variables. */
export interface ArgField {
  key: string;
  def: GraphQLField<unknown, unknown>;
  node: FieldNode;
}

export interface ConnPlan extends ArgField {
  list: ListName;
  fields: ConnField[];
}

export type ConnField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'totalCount' | 'totalCountIsEstimate' }
  | { key: string; kind: 'pageInfo'; fields: PageInfoField[] }
  | { key: string; kind: 'nodes'; node: NodePlan }
  | { key: string; kind: 'edges'; fields: EdgeField[] };

export type PageInfoField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor' };

export type EdgeField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'cursor' }
  | { key: string; kind: 'linkedAt'; type: GraphQLLeafType }
  | { key: string; kind: 'node'; node: NodePlan };

export interface NodePlan {
  kind: RecordKind;
  fields: NodeField[];
}

export type NodeField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'id' | 'properties' }
  | { key: string; kind: 'createdAt' | 'updatedAt'; type: GraphQLLeafType }
  | { key: string; kind: 'values'; byType: Map<string, ValueField[]> }
  | { key: string; kind: 'conn'; conn: ConnPlan };

export type ValueField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'propertyId' }
  /** A leaf of the value's type (`text`, `number`, `start`, `checked`), from the shape's fields. */
  | { key: string; kind: 'leaf'; name: string; type: GraphQLLeafType }
  /** A list of objects of the value's type (`options`, `users`), each with these leaves. */
  | { key: string; kind: 'objects'; name: string; fields: LeafPick[] };

export type LeafPick =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'leaf'; name: string; type: GraphQLLeafType };

const RECORD_KIND: Record<string, RecordKind> = Object.fromEntries(
  Object.entries(RECORD_TYPENAME).map(([kind, type]) => [type, kind as RecordKind]),
);

/** Leaves of these object types (no resolvers) that the plan may copy; `role` of User has one. */
const PICKABLE: Record<string, ReadonlySet<string>> = {
  SelectOption: new Set(['id', 'name', 'color']),
  User: new Set(['id', 'name', 'email']),
};

class Unplanned extends Error {}
const unplanned = (why: string): never => {
  throw new Unplanned(why);
};

/** The operation's plan, or null when it is outside the planned shape. */
export function planOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
): RootPlan | null {
  if (operation.operation !== 'query' || operation.directives?.length) return null;
  try {
    return new Planner(schema, fragments).root(operation.selectionSet);
  } catch (err) {
    if (err instanceof Unplanned) return null;
    throw err;
  }
}

/** The fragments of a document by name. */
export function fragmentsOf(
  definitions: readonly { kind: string }[],
): Record<string, FragmentDefinitionNode> {
  const out: Record<string, FragmentDefinitionNode> = {};
  for (const d of definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) {
      const f = d as FragmentDefinitionNode;
      out[f.name.value] = f;
    }
  return out;
}

class Planner {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
  ) {}

  root(set: SelectionSetNode): RootPlan {
    const query = this.schema.getQueryType() ?? unplanned('no query type');
    const org = this.only(query, [set], 'organization');
    const orgType = this.objectType(org.def);
    const portfolio = this.only(orgType, [org.node.selectionSet!], 'portfolio');
    const pfType = this.objectType(portfolio.def);
    const fields = this.collect(pfType, [portfolio.node.selectionSet!]);
    if (fields.size !== 1) unplanned('one connection under the portfolio');
    const [[key, nodes]] = fields;
    return { org, portfolio, conn: this.conn(pfType, key, nodes) };
  }

  /** The one field a level selects, which must be `name`. */
  private only(type: GraphQLObjectType, sets: readonly SelectionSetNode[], name: string): ArgField {
    const fields = this.collect(type, sets);
    if (fields.size !== 1) unplanned(`only ${name} under ${type.name}`);
    const [[key, nodes]] = fields;
    if (nodes[0].name.value !== name || nodes.length !== 1) unplanned(`${name} once`);
    return { key, def: type.getFields()[name], node: nodes[0] };
  }

  private objectType(def: GraphQLField<unknown, unknown>): GraphQLObjectType {
    const t = getNamedType(def.type);
    return isObjectType(t) ? t : unplanned(`${t.name} is not an object type`);
  }

  private conn(parent: GraphQLObjectType, key: string, nodes: FieldNode[]): ConnPlan {
    const name = nodes[0].name.value;
    const list = LIST_FIELDS[parent.name]?.[name] ?? unplanned(`${parent.name}.${name} is not a record list`);
    const def = parent.getFields()[name];
    const type = this.objectType(def);
    const fields: ConnField[] = [];
    for (const [k, ns] of this.collect(type, subSets(nodes))) {
      const f = ns[0].name.value;
      if (f === '__typename') fields.push({ key: k, kind: 'typename', typename: type.name });
      else if (f === 'totalCount' || f === 'totalCountIsEstimate') fields.push({ key: k, kind: f });
      else if (f === 'pageInfo') fields.push({ key: k, kind: 'pageInfo', fields: this.pageInfo(type, ns) });
      else if (f === 'nodes')
        fields.push({ key: k, kind: 'nodes', node: this.node(this.objectType(type.getFields()[f]), ns) });
      else if (f === 'edges')
        fields.push({ key: k, kind: 'edges', fields: this.edges(this.objectType(type.getFields()[f]), ns) });
      else unplanned(`${type.name}.${f}`);
    }
    return { key, def, node: nodes[0], list, fields };
  }

  private pageInfo(conn: GraphQLObjectType, nodes: FieldNode[]): PageInfoField[] {
    const type = this.objectType(conn.getFields().pageInfo);
    return [...this.collect(type, subSets(nodes))].map(([key, ns]) => {
      const f = ns[0].name.value;
      if (f === '__typename') return { key, kind: 'typename', typename: type.name };
      if (f === 'hasNextPage' || f === 'hasPreviousPage' || f === 'startCursor' || f === 'endCursor')
        return { key, kind: f };
      return unplanned(`PageInfo.${f}`);
    });
  }

  private edges(type: GraphQLObjectType, nodes: FieldNode[]): EdgeField[] {
    return [...this.collect(type, subSets(nodes))].map(([key, ns]): EdgeField => {
      const f = ns[0].name.value;
      if (f === '__typename') return { key, kind: 'typename', typename: type.name };
      if (f === 'cursor') return { key, kind: 'cursor' };
      if (f === 'linkedAt') return { key, kind: 'linkedAt', type: this.leaf(type, f) };
      if (f === 'node')
        return { key, kind: 'node', node: this.node(this.objectType(type.getFields()[f]), ns) };
      return unplanned(`${type.name}.${f}`);
    });
  }

  private node(type: GraphQLObjectType, nodes: FieldNode[]): NodePlan {
    const kind = RECORD_KIND[type.name] ?? unplanned(`${type.name} is not a record`);
    const fields = [...this.collect(type, subSets(nodes))].map(([key, ns]): NodeField => {
      const f = ns[0].name.value;
      if (f === '__typename') return { key, kind: 'typename', typename: type.name };
      if (f === 'id' || f === 'properties') return { key, kind: f };
      if (f === 'createdAt' || f === 'updatedAt') return { key, kind: f, type: this.leaf(type, f) };
      if (f === 'values') return { key, kind: 'values', byType: this.values(type, ns) };
      if (LIST_FIELDS[type.name]?.[f]) return { key, kind: 'conn', conn: this.conn(type, key, ns) };
      return unplanned(`${type.name}.${f}`);
    });
    return { kind, fields };
  }

  /** The typed values' selection, per concrete value type. */
  private values(record: GraphQLObjectType, nodes: FieldNode[]): Map<string, ValueField[]> {
    const abstract = getNamedType(record.getFields().values.type);
    if (!isAbstractType(abstract)) unplanned('values is not abstract');
    const byType = new Map<string, ValueField[]>();
    for (const type of this.schema.getPossibleTypes(abstract as never) as GraphQLObjectType[]) {
      const fields = [...this.collect(type, subSets(nodes))].map(([key, ns]): ValueField => {
        const f = ns[0].name.value;
        if (f === '__typename') return { key, kind: 'typename', typename: type.name };
        if (f === 'propertyId') return { key, kind: 'propertyId' };
        if (f === 'property') unplanned('PropertyValue.property');
        const t = getNamedType(type.getFields()[f].type);
        if (isLeafType(t)) return { key, kind: 'leaf', name: f, type: t };
        if (isObjectType(t) && PICKABLE[t.name])
          return { key, kind: 'objects', name: f, fields: this.picks(t, ns) };
        return unplanned(`${type.name}.${f}`);
      });
      byType.set(type.name, fields);
    }
    return byType;
  }

  private picks(type: GraphQLObjectType, nodes: FieldNode[]): LeafPick[] {
    return [...this.collect(type, subSets(nodes))].map(([key, ns]): LeafPick => {
      const f = ns[0].name.value;
      if (f === '__typename') return { key, kind: 'typename', typename: type.name };
      if (!PICKABLE[type.name].has(f)) unplanned(`${type.name}.${f}`);
      return { key, kind: 'leaf', name: f, type: this.leaf(type, f) };
    });
  }

  private leaf(type: GraphQLObjectType, name: string): GraphQLLeafType {
    const t = getNamedType(type.getFields()[name].type);
    return isLeafType(t) ? t : unplanned(`${type.name}.${name} is not a leaf`);
  }

  /**
   * The fields a selection asks of an object type, by response key in first-seen order, merged
   * across fragments as graphql-js merges them. Arguments of leaves and merged fields are left to
   * validation (OverlappingFieldsCanBeMerged); a leaf with arguments is outside the plan.
   */
  private collect(type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
    const out = new Map<string, FieldNode[]>();
    const visit = (set: SelectionSetNode) => {
      for (const s of set.selections) {
        if (s.directives?.length) unplanned('directives');
        if (s.kind === Kind.FIELD) {
          const key = s.alias?.value ?? s.name.value;
          if (UNWRITABLE_KEYS.has(key)) unplanned(`the response key ${key}`);
          const seen = out.get(key);
          if (seen) seen.push(s);
          else out.set(key, [s]);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          if (!s.typeCondition || this.applies(s.typeCondition.name.value, type)) visit(s.selectionSet);
        } else {
          const f = this.fragments[s.name.value] ?? unplanned(`fragment ${s.name.value}`);
          if (f.directives?.length) unplanned('directives');
          if (this.applies(f.typeCondition.name.value, type)) visit(f.selectionSet);
        }
      }
    };
    for (const set of sets) visit(set);
    for (const [, nodes] of out) {
      const name = nodes[0].name.value;
      if (nodes.some((n) => n.name.value !== name)) unplanned('one response key, two fields');
      if (name !== '__typename' && !type.getFields()[name]) unplanned(`${type.name}.${name}`);
    }
    return out;
  }

  private applies(condition: string, type: GraphQLObjectType): boolean {
    if (condition === type.name) return true;
    const t: GraphQLNamedType | undefined = this.schema.getType(condition);
    return !!t && isAbstractType(t) && this.schema.isSubType(t, type);
  }
}

/** The selection sets of a field's nodes, to collect together. */
function subSets(nodes: readonly FieldNode[]): SelectionSetNode[] {
  return nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
}
