import { expect, test } from 'vitest';
import { dropBenchDatabase, runBenchCli } from './helpers/bench-cli.js';

/**
 * `npm run bench -- --abuse` in miniature, so it cannot rot: scale 0.01, one-second windows, every
 * attack (the WebSocket ones at a tenth of their size). It checks that each attack ran and was
 * answered as designed, not how fast.
 */
const url = process.env.DATABASE_URL;

/** The attacks of `--abuse`, in the order it runs them; the WebSocket ones are named `ws-…`. */
const ATTACK_IDS = [
  'fragments',
  'variable-default',
  'junk-keys',
  'random-keys',
  'silent-db',
  'ws-heavy',
  'ws-cheap',
  'ws-no-read',
  'ws-churn',
  'ws-fanout',
  'ws-slow-webhook',
];

test.skipIf(!url)(
  'the abuse benchmark runs every attack beside a tenant and reports',
  { timeout: 300_000 },
  async () => {
    const dbName = `sdg_bench_abuse_smoke_${process.pid}`;
    try {
      const { json: r, md: page } = await runBenchCli([
        ...['--abuse', '--db', dbName, '--scale', '0.01', '--reseed', '--duration', '1'],
      ]);
      expect(r.attacks.map((a: { id: string }) => a.id)).toEqual(ATTACK_IDS);
      const WS_OUTCOME =
        /^(answered|refused|closed|unanswered|accepted|subscribed|events received|PUT 200|socket closed 4\d{3}|socket refused \(429\)|endpoint registered|endpoint refused \(\w+\)|write 200|write refused \(\d+\)|slow deliveries received)$/;
      const hooks = r.attacks.find((a: { id: string }) => a.id === 'ws-slow-webhook');
      expect(hooks.webhook.calm.writes).toBeGreaterThan(0);
      expect(hooks.webhook.calm.delivered, 'org B is delivered when calm').toBe(hooks.webhook.calm.writes);
      expect(hooks.attacker.statuses['endpoint registered']).toBeGreaterThan(0);
      const refused: Record<string, string[]> = {
        fragments: ['400', '429'],
        'variable-default': ['400', '429'],
        'junk-keys': ['401', '429'],
        'random-keys': ['401', '429'],
      };
      for (const a of r.attacks) {
        if (a.id.startsWith('ws-')) {
          // Whatever the protections of the day: every outcome is an answer, a refusal or a close,
          // never an error the bench caused (a document the schema rejects, a crashed attacker).
          expect(a.attacker.requests, a.id).toBeGreaterThan(0);
          for (const [outcome, n] of Object.entries<number>(a.attacker.statuses))
            if (n > 0) expect(outcome, `${a.id}: ${JSON.stringify(a.attacker.statuses)}`).toMatch(WS_OUTCOME);
          expect(a.peakRssMb, a.id).toBeGreaterThan(0);
          continue;
        }
        if (a.id === 'silent-db') {
          expect(Object.keys(a.tenant.statuses)).toEqual(['503']);
          expect(a.recoverySec).toBeLessThan(10);
          continue;
        }
        expect(a.tenant.statuses, a.id).toEqual({ 200: a.tenant.requests });
        expect(a.attacker.requests, a.id).toBeGreaterThan(0);
        for (const [status, n] of Object.entries<number>(a.attacker.statuses))
          if (n > 0) expect(refused[a.id], `${a.id} ${status}`).toContain(status);
        expect(a.peakRssMb, a.id).toBeGreaterThan(0);
      }
      expect(page).toMatch(/\| 1\. fragments/);
      for (const a of r.attacks) if (a.id.startsWith('ws-')) expect(page, a.id).toContain(`| ${a.title} |`);
      expect(page).toContain("org B's webhook delivery delay");
    } finally {
      await dropBenchDatabase(url!, dbName);
    }
  },
);

test.skipIf(url)('the abuse benchmark needs Postgres: run with DATABASE_URL (npm run test:pg)', () => {});
