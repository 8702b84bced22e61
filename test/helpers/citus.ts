import { createCitusDatabase as create, dropCitusDatabase } from './citus-cluster.js';

/**
 * Test databases on a Citus cluster (`npm run test:citus`, SDG_CITUS=1): each scratch database is
 * created on the coordinator and on every worker with the extension and the workers registered
 * (test/helpers/citus-cluster.ts, which the bench's `--scaleout --citus` shares); the test file then migrates
 * (and seeds) it itself.
 */
export const onCitus = process.env.SDG_CITUS === '1';

export async function createCitusDatabase(adminUrl: string, name: string): Promise<() => Promise<void>> {
  await create(adminUrl, name);
  return () => dropCitusDatabase(adminUrl, name);
}
