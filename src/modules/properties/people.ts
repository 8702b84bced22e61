import { sql } from 'kysely';
import { anyOf, define, idList, LABELS_SCHEMA, strictObject } from './property-type.js';

export type PeopleStored = { people: string[] };

/**
 * One user of the organization (a member or a guest), `{ people: [uid] }`. Which users exist is
 * the organization's to say, so writes and filters name their ids to the caller (`users`,
 * `cx.person`), which checks them against the org before anything is stored or run.
 */
export const people = define<'people', PeopleStored>({
  name: 'people',
  shape: {
    member: 'people',
    graphqlType: 'PeopleValue',
    graphqlFields: {},
    // Users who left the org, or are out of the caller's sight, are not in `users` and not shown.
    // A copy of each user without its role (User.role reads null inside a value). A loop, not a
    // flatMap: a nested page reads thousands of these, and flatMap's array per user was most of it.
    graphqlUserFields: {
      users: (v, users) => {
        const out: { id: string; email: string; name: string }[] = [];
        for (const uid of (v.value as PeopleStored).people) {
          const u = users.get(uid);
          if (u) out.push({ id: u.id, email: u.email, name: u.name });
        }
        return out;
      },
    },
    openapi: {
      name: 'PeopleValue',
      read: strictObject(
        {
          people: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            description: 'One user id (`uid`).',
            minItems: 1,
            maxItems: 1,
          },
          labels: LABELS_SCHEMA,
        },
        ['people'],
        'A people value: exactly one user id.',
        { examples: [{ people: ['usr_…'], labels: ['Alice Ambrose'] }] },
      ),
      write: strictObject(
        {
          people: {
            type: ['array', 'null'],
            items: { type: 'string', minLength: 1 },
            minItems: 1,
            maxItems: 1,
          },
          labels: LABELS_SCHEMA,
        },
        ['people'],
        'Sets a people property to exactly one user id of the organization; `{ "people": null }` clears it.',
      ),
    },
    withLabels: (v, _def, users) => ({
      people: v.people,
      labels: v.people.map((uid) => users?.get(uid)?.name ?? uid),
    }),
  },
  example: '{ "people": ["<user id>"] }',
  check: (v) =>
    !Array.isArray(v) || v.length !== 1 || typeof v[0] !== 'string' || !v[0]
      ? { reason: 'people takes exactly one user id: { "people": ["usr_…"] }' }
      : { value: { people: [v[0]] } },
  users: (v) => v.people,
  filter: {
    group: 'people',
    operators: ['in', 'me', 'isEmpty'],
    // `me: true` adds the caller to `in` (schema.graphql); alone it is `in: [caller]`, and
    // `me: false` adds nothing.
    compile(op, v, cx) {
      const me = cx.group.me === true;
      if (op === 'me') return v && cx.group.in == null ? cx.contains({ people: [cx.viewerId] }) : sql`true`;
      const uids = idList(v, cx);
      if (!uids) return sql`false`;
      for (const uid of uids) cx.person(uid);
      const all = me && !uids.includes(cx.viewerId) ? [...uids, cx.viewerId] : uids;
      return anyOf(all.map((u) => cx.contains({ people: [u] })));
    },
    empty: (p) => sql`${p} is null`,
  },
  facet: 'people',
  aggregate: { group: { value: (p) => sql`(${p} -> 'people' ->> 0)`, by: 'user' } },
  fromImport: (v) => ({ people: [String(v)] }),
});
