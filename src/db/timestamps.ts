import pg from 'pg';

/** pg's own timestamptz parser (postgres-date): regular expressions and a match array per value. */
const generic = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (s: string) => Date | number;

const isDigit = (c: number) => c >= 48 && c <= 57;
/** Where 'YYYY-MM-DD HH:MM:SS' has digits. */
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/**
 * timestamptz as Postgres sends it to a UTC session, `2026-11-23 06:08:21.774512+00`, read by
 * position: every row of a page carries three or four of them, and the generic parser's regular
 * expressions were a visible share of a nested query's CPU and garbage. The result is the generic
 * parser's, to the millisecond (the same arithmetic); any other form (another time zone, a year
 * before 100 or after 9999, BC, infinity) goes to the generic parser.
 */
export function parseTimestamptz(s: string): Date | number {
  const n = s.length;
  if (
    n < 22 ||
    n > 29 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 32 || // space
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58 ||
    !s.endsWith('+00') ||
    (n > 22 && s.charCodeAt(19) !== 46) // .
  )
    return generic(s);
  for (const i of DIGITS) if (!isDigit(s.charCodeAt(i))) return generic(s);
  for (let i = 20; i < n - 3; i++) if (!isDigit(s.charCodeAt(i))) return generic(s);
  // Digits by char code: no substring per field.
  const num = (at: number, len: number) => {
    let v = 0;
    for (let i = at; i < at + len; i++) v = v * 10 + s.charCodeAt(i) - 48;
    return v;
  };
  const year = num(0, 4);
  if (year < 100) return generic(s);
  const ms = n > 22 ? 1000 * Number.parseFloat(s.slice(19, n - 3)) : 0;
  const date = new Date(Date.UTC(year, num(5, 2) - 1, num(8, 2), num(11, 2), num(14, 2), num(17, 2), ms));
  (date as PgDate)[PG_TEXT] = s;
  return date;
}

/** The text a fast-parsed Date was read from: its ISO 8601 form is a rearrangement of it. */
const PG_TEXT = Symbol('timestamptz text');
type PgDate = Date & { [PG_TEXT]?: string };

const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/**
 * `date.toISOString()`, from the text parseTimestamptz read when it has it: a REST page writes two
 * timestamps per item, and rearranging the text is several times faster than V8's toISOString
 * (docs/benchmarks.md).
 * Date and time come from the text and the milliseconds from the Date, so the two cannot differ;
 * a Date built any other way is formatted by toISOString.
 */
export function isoString(date: Date): string {
  const s = (date as PgDate)[PG_TEXT];
  if (s === undefined) return date.toISOString();
  const ms = ((date.getTime() % 1000) + 1000) % 1000;
  return `${s.slice(0, 10)}T${s.slice(11, 19)}.${pad3(ms)}Z`;
}
