import { sql } from 'kysely';
import { bulkLink } from '../src/modules/links/repository.js';
import { createPortfolio } from '../src/modules/org/repository.js';
import { bulkInsertRecords, type PageRequest } from '../src/modules/records/repository.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { capturePageStatement, explainNodes } from './helpers/plan.js';

/**
 * The batched page statement must reach a deep page through the index (keyset as an index
 * condition), not by reading and discarding every earlier link of the parent.
 */

describe('deep keyset pages in a batch', () => {
  test('a page 1,900 links deep, batched with another parent, discards no earlier links', async ({ env }) => {
    const db = env.database.db;
    const org = env.demo.orgs.A.id;
    const pf = (await createPortfolio(db, org, 'Deep links')).id;
    const parcels = await bulkInsertRecords(
      db,
      'parcel',
      org,
      pf,
      Array.from({ length: 2000 }, (_, i) => ({ properties: { name: { text: `Deep ${i}` } } })),
    );
    const [contact, other] = await bulkInsertRecords(db, 'contact', org, pf, [
      { properties: { first_name: { text: 'Deep' } } },
      { properties: { first_name: { text: 'Shallow' } } },
    ]);
    await bulkLink(
      db,
      'parcel_contacts',
      org,
      pf,
      parcels.map((p): [string, string] => [p, contact]),
    );
    await bulkLink(db, 'parcel_contacts', org, pf, [[parcels[0], other]]);
    await sql`analyze parcel_contacts`.execute(db);
    const { rows } = await sql<{ linked_at: Date; parcel_id: string }>`
      select linked_at, parcel_id from parcel_contacts where org_id = ${org} and contact_id = ${contact}
      order by linked_at, parcel_id offset 1899 limit 1`.execute(db);
    const bound: [number, string] = [rows[0].linked_at.getTime(), rows[0].parcel_id];

    for (const direction of ['forward', 'backward'] as const) {
      const reqs: PageRequest[] = [
        { list: 'contact-parcels', orgId: org, parentId: contact, limit: 11, direction, bound },
        { list: 'contact-parcels', orgId: org, parentId: other, limit: 11, direction },
      ];
      const { pages, query } = await capturePageStatement(db, reqs);
      expect(pages[0]).toHaveLength(11);
      expect(pages[1]).toHaveLength(1);
      const nodes = await explainNodes(env.database, query);
      const discarded = nodes.reduce((s, n) => s + (n['Rows Removed by Filter'] ?? 0), 0);
      expect(discarded, `${direction}: rows read and thrown away`).toBeLessThan(50);
    }
  });
});
