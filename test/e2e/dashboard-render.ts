/**
 * A static render of docs/grafana-dashboard.json from two real scrapes of /metrics: each panel's
 * expressions evaluated over the window between the scrapes (the small PromQL subset the dashboard
 * uses: sum by, rate, histogram_quantile, a ratio of two of those), drawn as bars in plain HTML.
 * Grafana itself is not needed to see what the panels show.
 */

type Sample = { name: string; labels: Record<string, string>; value: number };
type Series = Map<string, { labels: Record<string, string>; value: number }>;

export function parseScrape(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const key = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).sort());

function matches(labels: Record<string, string>, matchers: string | undefined): boolean {
  if (!matchers) return true;
  for (const m of matchers.matchAll(/(\w+)(=~|=)"([^"]*)"/g)) {
    const v = labels[m[1]] ?? '';
    if (m[2] === '=' ? v !== m[3] : !new RegExp(`^(?:${m[3]})$`).test(v)) return false;
  }
  return true;
}

/** One expression without a division, over the window [before, after] of `seconds`. */
function evalSimple(expr: string, before: Sample[], after: Sample[], seconds: number): Series {
  const metric = /((?:sdg|nodejs|process)_\w+)(?:\{([^}]*)\})?/.exec(expr);
  if (!metric) return new Map();
  const [, name, matchers] = metric;
  const by =
    /by \(([^)]*)\)/
      .exec(expr)?.[1]
      .split(',')
      .map((s) => s.trim()) ?? [];
  const quantile = /histogram_quantile\(([\d.]+)/.exec(expr);
  const rate = expr.includes('rate(');
  const prev = new Map(before.filter((s) => s.name === name).map((s) => [key(s.labels), s.value]));
  const groups: Series = new Map();
  const buckets = new Map<string, Map<number, number>>();
  for (const s of after) {
    if (s.name !== name || !matches(s.labels, matchers)) continue;
    const v = rate ? (s.value - (prev.get(key(s.labels)) ?? 0)) / (quantile ? 1 : seconds) : s.value;
    const g: Record<string, string> = {};
    for (const l of by) if (l !== 'le' && s.labels[l] !== undefined) g[l] = s.labels[l];
    if (quantile) {
      const b = buckets.get(key(g)) ?? new Map<number, number>();
      const le = s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le);
      b.set(le, (b.get(le) ?? 0) + v);
      buckets.set(key(g), b);
      if (!groups.has(key(g))) groups.set(key(g), { labels: g, value: 0 });
      continue;
    }
    const cur = groups.get(key(g)) ?? { labels: g, value: 0 };
    cur.value = name.includes('lag') && expr.startsWith('max') ? Math.max(cur.value, v) : cur.value + v;
    groups.set(key(g), cur);
  }
  if (quantile)
    for (const [k, b] of buckets) {
      const sorted = [...b.entries()].sort((x, y) => x[0] - y[0]);
      const total = sorted.at(-1)?.[1] ?? 0;
      const want = Number(quantile[1]) * total;
      // Linear within the bucket that holds the quantile, as Prometheus does.
      const i = sorted.findIndex(([, c]) => c >= want && total > 0);
      const [le, count] = sorted[i] ?? [Number.NaN, 0];
      const [lo, below] = i > 0 ? sorted[i - 1] : [0, 0];
      groups.get(k)!.value =
        i < 0
          ? Number.NaN
          : Number.isFinite(le)
            ? lo + (le - lo) * ((want - below) / (count - below || 1))
            : lo;
    }
  return groups;
}

export function evaluate(expr: string, before: Sample[], after: Sample[], seconds: number): Series {
  const [num, den] = expr.split(' / ');
  const top = evalSimple(num, before, after, seconds);
  if (!den) return top;
  const bottom = evalSimple(den, before, after, seconds);
  for (const [k, s] of top) s.value = s.value / (bottom.get(k)?.value ?? Number.NaN);
  return top;
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function format(v: number, unit: string): string {
  if (!Number.isFinite(v)) return '–';
  if (unit === 's') return v < 1 ? `${(v * 1000).toFixed(1)} ms` : `${v.toFixed(2)} s`;
  if (unit === 'percentunit') return `${(v * 100).toFixed(0)}%`;
  if (unit === 'bytes') return `${(v / 1048576).toFixed(1)} MiB`;
  if (unit === 'reqps') return `${v.toFixed(2)}/s`;
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

interface Panel {
  title: string;
  fieldConfig: { defaults: { unit: string } };
  targets: { expr: string; legendFormat?: string }[];
}

/** The dashboard as one HTML page: a card per panel, a bar per series. */
export function renderDashboard(
  dashboard: { title: string; panels: Panel[] },
  before: string,
  after: string,
  seconds: number,
): string {
  const b = parseScrape(before);
  const a = parseScrape(after);
  const cards = dashboard.panels.map((p) => {
    const unit = p.fieldConfig.defaults.unit;
    const rows = p.targets.flatMap((t, i) =>
      [...evaluate(t.expr, b, a, seconds).values()].map((s) => ({
        label:
          (t.legendFormat ?? '').replace(/\{\{(\w+)\}\}/g, (_, l) => s.labels[l] ?? '').trim() ||
          Object.values(s.labels).join(' ') ||
          `query ${String.fromCharCode(65 + i)}`,
        value: s.value,
        // Mixed units in one panel (a max beside a count): the bar scale is per query.
        query: i,
      })),
    );
    const maxOf = (q: number) =>
      Math.max(...rows.filter((r) => r.query === q && Number.isFinite(r.value)).map((r) => r.value), 0);
    const bars = rows
      .sort((x, y) => x.query - y.query || (y.value || 0) - (x.value || 0))
      .slice(0, 12)
      .map((r) => {
        const w =
          maxOf(r.query) > 0 && Number.isFinite(r.value) ? Math.max(1, (r.value / maxOf(r.query)) * 100) : 0;
        return `<div class="row"><span class="label">${esc(r.label)}</span><span class="bar q${r.query}" style="width:${w.toFixed(1)}%"></span><span class="value">${esc(format(r.value, p.targets.length > 1 && r.query > 0 && unit === 'bytes' ? 's' : unit))}</span></div>`;
      })
      .join('');
    return `<section><h2>${esc(p.title)}</h2>${bars || '<p class="none">no samples in this window</p>'}</section>`;
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(dashboard.title)}</title><style>
body{font:13px system-ui,sans-serif;background:#111217;color:#ccccdc;margin:16px}
h1{font-size:18px;margin:0 0 4px}p.sub{margin:0 0 12px;color:#8e8e9e}
main{display:grid;grid-template-columns:1fr 1fr;gap:10px}
section{background:#181b1f;border:1px solid #2c3235;border-radius:4px;padding:8px 12px;min-height:120px}
h2{font-size:13px;margin:0 0 8px;color:#d8d9da}
.row{display:grid;grid-template-columns:260px 1fr 90px;align-items:center;gap:8px;margin:3px 0}
.label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.bar{height:12px;background:#73bf69;border-radius:2px}.bar.q1{background:#f2cc0c}.bar.q2{background:#8ab8ff}
.value{text-align:right;font-variant-numeric:tabular-nums}.none{color:#6e6e7e}
</style></head><body><h1>${esc(dashboard.title)}</h1><p class="sub">Static render of docs/grafana-dashboard.json from two scrapes of /metrics ${seconds.toFixed(1)} s apart (rates and quantiles over that window)</p><main>${cards.join('')}</main></body></html>`;
}
