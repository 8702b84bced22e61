import type { ScenarioResult } from './scenario-result.js';

/** One of the benchmark's targets (evaluateTargets below), as measured; `pass` is null when not measured. */
export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean | null;
}

/** List levels in scenario 7 (projects → contacts → parcels); its SQL budget is depth + 3. */
export const NESTED_DEPTH = 3;
export const RSS_LIMIT_MB = 300;
/** A 5000-item page's peak RSS at the highest concurrency may exceed the 1-connection peak by this much. */
export const BIG_PAGE_RSS_GROWTH = 1.25;

const sqlOf = (s: ScenarioResult | undefined) => {
  if (!s) return undefined;
  const seen = [s.probe.gateway.sql ?? 0, ...s.runs.map((r) => r.gateway.sql?.max ?? 0)];
  return Math.max(...seen);
};

/** What the targets read of a run's results: its scenarios and the gateway's peak RSS. */
export interface TargetInput {
  scenarios: readonly ScenarioResult[];
  servers: { gatewayPeakRssMb: number };
}

export function evaluateTargets(r: TargetInput): TargetCheck[] {
  const by = new Map(r.scenarios.map((s) => [s.id, s]));
  const out: TargetCheck[] = [];

  const cold = (id: string) => by.get(id)?.probe.gateway.coldSql;
  for (const id of ['1', '2', '3', '6']) {
    const n = sqlOf(by.get(id));
    out.push({
      target: `Scenario ${id}: at most 3 SQL statements per request, auth included`,
      measured: n === undefined ? 'not run' : `${n} (cold: ${cold(id) ?? '–'})`,
      pass: n === undefined ? null : n <= 3,
    });
  }
  const n7 = sqlOf(by.get('7'));
  const n7s = sqlOf(by.get('7@10'));
  out.push({
    target: `Scenario 7: at most depth + 3 = ${NESTED_DEPTH + 3} statements, the same at 10 and 100 projects`,
    measured:
      n7 === undefined ? 'not run' : `${n7} at 100 projects, ${n7s ?? '–'} at 10 (cold: ${cold('7') ?? '–'})`,
    pass: n7 === undefined ? null : n7 <= NESTED_DEPTH + 3 && (n7s === undefined || n7s === n7),
  });

  const s1 = by.get('1');
  const s2 = by.get('2');
  if (s1?.runs.length && s2?.runs.length) {
    const ratios = s1.runs.map((a) => {
      const b = s2.runs.find((x) => x.connections === a.connections);
      return { c: a.connections, x: b ? b.gateway.latencyMs.p50 / a.gateway.latencyMs.p50 : Number.NaN };
    });
    out.push({
      target: 'Deep page (2) p50 latency within 1.3× the first page (1)',
      measured: ratios.map((q) => `${q.x.toFixed(2)}× @${q.c}`).join(', '),
      pass: ratios.every((q) => q.x <= 1.3),
    });
  } else
    out.push({ target: 'Deep page (2) within 1.3× the first page (1)', measured: 'not run', pass: null });

  const ratioCheck = (ids: string[], min: number, what: string) => {
    const rs = ids.flatMap((id) =>
      (by.get(id)?.runs ?? [])
        .filter((x) => x.ratio !== undefined)
        .map((x) => ({ id, c: x.connections, v: x.ratio! })),
    );
    out.push({
      target: `${what}: at least ${min}× the raw baseline's throughput`,
      measured: rs.length ? rs.map((q) => `${q.id}@${q.c}: ${q.v.toFixed(2)}`).join(', ') : 'not run',
      pass: rs.length ? rs.every((q) => q.v >= min) : null,
    });
  };
  ratioCheck(['1', '2', '3'], 0.6, 'REST pages (1, 2, 3)');
  ratioCheck(['7'], 0.5, 'GraphQL nested (7)');

  const peak = r.servers.gatewayPeakRssMb;
  out.push({
    target: `Gateway peak RSS under load below ${RSS_LIMIT_MB} MB`,
    measured: peak ? `${peak} MB` : 'not run',
    pass: peak ? peak < RSS_LIMIT_MB : null,
  });
  const s3 = by.get('3')?.runs ?? [];
  if (s3.length >= 2) {
    const lo = s3[0];
    const hi = s3[s3.length - 1];
    out.push({
      target: `5000-item page (3): peak RSS at ${hi.connections} connections within ${BIG_PAGE_RSS_GROWTH}× of ${lo.connections}`,
      measured: s3.map((x) => `${x.gateway.peakRssMb} MB @${x.connections}`).join(', '),
      pass: hi.gateway.peakRssMb <= lo.gateway.peakRssMb * BIG_PAGE_RSS_GROWTH,
    });
  }
  const errors = r.scenarios
    .flatMap((s) => s.runs.flatMap((x) => [x.gateway.errors, x.baseline?.errors ?? 0]))
    .reduce((a, b) => a + b, 0);
  const unequal = r.scenarios.filter((s) => s.probe.bodiesEqual === false).map((s) => s.id);
  out.push({ target: 'No errors in any run', measured: `${errors}`, pass: errors === 0 });
  // The baseline is a floor only while it does no more database work than the gateway.
  const heavier = r.scenarios.filter(
    (s) =>
      s.probe.baseline?.sql != null &&
      s.probe.gateway.sql != null &&
      s.probe.baseline.sql > s.probe.gateway.sql,
  );
  const compared = r.scenarios.filter((s) => s.probe.baseline?.sql != null);
  out.push({
    target: 'Baseline sends no more SQL statements than the gateway (warm), so it is a floor',
    measured: compared.length
      ? compared.map((s) => `${s.id}: ${s.probe.baseline!.sql} vs ${s.probe.gateway.sql}`).join(', ')
      : 'not run',
    pass: compared.length ? heavier.length === 0 : null,
  });
  out.push({
    target: 'Baseline answers the same JSON as the gateway (1, 2, 3, 7)',
    measured: unequal.length ? `differs: ${unequal.join(', ')}` : 'equal',
    pass: r.scenarios.some((s) => s.probe.bodiesEqual !== undefined) ? unequal.length === 0 : null,
  });
  return out;
}
