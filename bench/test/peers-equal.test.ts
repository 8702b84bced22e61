import { describe, expect, test } from 'vitest';
import { compareNested, fromGateway, fromPostgraphile, storedValue } from '../peers-equal.js';

/** One tree of records (stored values), answered in each server's shape. */
interface Rec {
  id: string;
  props: Record<string, any>;
  children?: { more: boolean; nodes: Rec[] };
}

const OPTIONS: Record<string, { name: string; color: string }> = {
  permitting: { name: 'Permitting', color: '#f59e0b' },
  ppa: { name: 'PPA', color: '#10b981' },
};

/** The gateway's typed values of stored properties, labels included, as fragment V asks for them. */
const typed = (props: Record<string, any>) =>
  Object.entries(props).map(([propertyId, v]) => {
    if ('text' in v) return { __typename: 'TextValue', propertyId, text: v.text };
    if ('number' in v) return { __typename: 'NumberValue', propertyId, number: v.number };
    if ('date' in v) return { __typename: 'DateValue', propertyId, start: v.date.start };
    if ('select' in v)
      return {
        __typename: 'SelectValue',
        propertyId,
        options: v.select.map((id: string) => ({ id, ...OPTIONS[id] })),
      };
    return {
      __typename: 'PeopleValue',
      propertyId,
      users: v.people.map((id: string) => ({ id, name: `User ${id}` })),
    };
  });

const KEYS = ['contacts', 'parcels'];
function gatewayConn(more: boolean, nodes: Rec[], depth: number): any {
  return {
    pageInfo: { hasNextPage: more, endCursor: `gw-${depth}` },
    nodes: nodes.map((n) => ({
      id: n.id,
      values: typed(n.props),
      ...(n.children ? { [KEYS[depth]]: gatewayConn(n.children.more, n.children.nodes, depth + 1) } : {}),
    })),
  };
}
const gatewayBody = (more: boolean, projects: Rec[]) => ({
  data: { organization: { portfolio: { projects: gatewayConn(more, projects, 0) } } },
});

const peerNode = (n: Rec, depth: number): any => ({
  rowId: n.id,
  properties: n.props,
  ...(n.children
    ? {
        [depth === 0
          ? 'projectContactsByOrgIdAndPortfolioIdAndProjectId'
          : 'parcelContactsByOrgIdAndPortfolioIdAndContactId']: {
          pageInfo: { hasNextPage: n.children.more, endCursor: 'pg' },
          nodes: n.children.nodes.map((c) =>
            depth === 0
              ? { contactByOrgIdAndPortfolioIdAndContactId: peerNode(c, 1) }
              : { parcelByOrgIdAndPortfolioIdAndParcelId: peerNode(c, 2) },
          ),
        },
      }
    : {}),
});
const peerBody = (more: boolean, projects: Rec[]) => ({
  data: {
    portfolioByOrgIdAndRowId: {
      projectsByOrgIdAndPortfolioId: {
        pageInfo: { hasNextPage: more, endCursor: 'pg' },
        nodes: projects.map((p) => peerNode(p, 0)),
      },
    },
  },
});

const tree = (): Rec[] => [
  {
    id: 'prj_1',
    props: {
      name: { text: 'Alpha Solar' },
      capacity_mw: { number: 12.5 },
      stage: { select: ['permitting'] },
      offtake: { select: ['ppa'] },
      cod: { date: { start: '2027-01-31' } },
      owner: { people: ['usr_1'] },
    },
    children: {
      more: true,
      nodes: [
        {
          id: 'con_1',
          props: { first_name: { text: 'Ada' }, relationship_owner: { people: ['usr_2'] } },
          children: {
            more: false,
            nodes: [
              { id: 'par_1', props: { apn: { text: 'A-1' } } },
              { id: 'par_2', props: {} },
            ],
          },
        },
        { id: 'con_2', props: { first_name: { text: 'Bo' } }, children: { more: false, nodes: [] } },
      ],
    },
  },
  { id: 'prj_2', props: { name: { text: 'Beta' } }, children: { more: false, nodes: [] } },
];

describe('the peer bench compares PostGraphile with the gateway', () => {
  test('the same rows and stored values compare equal, labels and cursors aside', () => {
    const r = compareNested(fromGateway(gatewayBody(true, tree())), fromPostgraphile(peerBody(true, tree())));
    expect(r).toEqual({ equal: true, counts: { projects: 2, contacts: 2, parcels: 2 } });
  });

  test('typed values go back to their stored shape', () => {
    expect(storedValue({ __typename: 'DateValue', propertyId: 'cod', start: '2027-01-31' })).toEqual([
      'cod',
      { date: { start: '2027-01-31' } },
    ]);
    expect(
      storedValue({
        __typename: 'SelectValue',
        propertyId: 's',
        options: [{ id: 'a', name: 'A', color: '#fff' }],
      }),
    ).toEqual(['s', { select: ['a'] }]);
    expect(() => storedValue({ __typename: 'GeoValue', propertyId: 'x' })).toThrow(/unknown value type/);
  });

  test('a different value, order, row or hasNextPage anywhere in the tree is found, with where', () => {
    const cases: [string, (t: Rec[]) => void, string][] = [
      ['option id', (t) => (t[0].props.stage.select = ['construction']), 'projects[0].values'],
      [
        'number',
        (t) => (t[0].children!.nodes[0].props.first_name = { text: 'Eve' }),
        'projects[0].contacts[0].values',
      ],
      [
        'parcel order',
        (t) => t[0].children!.nodes[0].children!.nodes.reverse(),
        'projects[0].contacts[0].parcels[0].id',
      ],
      [
        'missing parcel',
        (t) => t[0].children!.nodes[0].children!.nodes.pop(),
        'projects[0].contacts[0].parcels: 2 nodes against 1',
      ],
      ['hasNextPage', (t) => (t[0].children!.more = false), 'projects[0].contacts.hasNextPage'],
      ['missing value', (t) => delete t[1].props.name, 'projects[1].values'],
    ];
    for (const [what, change, where] of cases) {
      const peer = tree();
      change(peer);
      const r = compareNested(fromGateway(gatewayBody(true, tree())), fromPostgraphile(peerBody(true, peer)));
      expect(r.equal, what).toBe(false);
      expect(r.difference, what).toBe(where);
    }
  });

  test('an answer without data, or with errors, is an error, never an empty tree that compares equal', () => {
    expect(() => fromPostgraphile({ data: { portfolioByOrgIdAndRowId: null } })).toThrow(/no projects/);
    expect(() => fromGateway({ errors: [{ message: 'boom' }], data: null })).toThrow(/errors/);
    expect(() => fromPostgraphile({ errors: [{ message: 'Cannot query field' }] })).toThrow(/errors/);
  });
});
