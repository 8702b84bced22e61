import { sql } from 'kysely';
import {
  define,
  type PropertyDef,
  type PropertyType,
  scalarOpenApi,
  type ValueShape,
} from './property-type.js';

/** Longest text, url or email value, in characters (Unicode code points: an emoji counts as one). */
export const MAX_TEXT_LENGTH = 10_000;

// C0 controls other than tab, LF and CR; jsonb cannot even store U+0000.
// biome-ignore lint/suspicious/noControlCharactersInRegex: this is the point
export const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// local@domain, the domain made of non-empty dot-separated labels (at least two).
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
// A UTF-16 surrogate that is not half of a pair: JSON can carry one (\ud800), Postgres jsonb cannot.
const LONE_SURROGATE = /\p{Surrogate}/u;
const HTTP_URL = /^https?:\/\/[^\s]+$/i;

function isHttpUrl(s: string): boolean {
  // The scheme and // are required as written: WHATWG URL would read "http:example.com" as http://example.com/.
  if (!HTTP_URL.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

export type TextStored = { text: string };

/** text, url and email values are all `{ text }`; search covers every value of this shape. */
const TEXT_SHAPE: ValueShape<TextStored> = {
  member: 'text',
  graphqlType: 'TextValue',
  graphqlFields: { text: (v) => (v.value as TextStored).text },
  openapi: scalarOpenApi({
    name: 'TextValue',
    member: 'text',
    type: 'string',
    read: 'A text, url or email value.',
    write:
      'Sets a text, url or email property; `{ "text": null }` clears it. url: absolute http(s) URL; email: an e-mail address.',
    example: 'Mesa Verde Solar',
    writeExtra: { maxLength: MAX_TEXT_LENGTH },
  }),
};

/** The checks every text-like value passes, then the type's own (`extra`). */
function checkText(
  v: unknown,
  def: PropertyDef,
  hint: string,
  extra?: (s: string) => string | undefined,
): { value: TextStored } | { reason: string } {
  if (typeof v !== 'string') return { reason: `text must be a string: ${hint}` };
  // Cheap bound first (code units >= code points), then the exact count.
  const length = v.length > MAX_TEXT_LENGTH ? [...v].length : v.length;
  if (length > MAX_TEXT_LENGTH)
    return { reason: `text is ${length} characters; the limit is ${MAX_TEXT_LENGTH}` };
  if (CONTROL.test(v)) return { reason: 'text contains control characters; only tab, CR and LF are allowed' };
  if (LONE_SURROGATE.test(v))
    return { reason: 'text is not valid Unicode: it holds a lone UTF-16 surrogate (\\ud800-\\udfff)' };
  if (def.required && v.trim() === '') return { reason: 'is required and cannot be empty or blank' };
  const wrong = extra?.(v);
  return wrong ? { reason: wrong } : { value: { text: v } };
}

const TEXT_FILTER: PropertyType['filter'] = {
  group: 'text',
  operators: ['eq', 'neq', 'contains', 'startsWith', 'isEmpty'],
  compile(op, v, cx) {
    const t = sql`(${cx.p} ->> 'text')`;
    const s = v as string;
    if (op === 'eq') return cx.contains({ text: s });
    if (op === 'neq') return sql`not coalesce(${t} = ${s}, false)`;
    if (op === 'contains') return sql`${t} ilike ${`%${likeEscape(s)}%`}`;
    return sql`${t} ilike ${`${likeEscape(s)}%`}`; // startsWith
  },
  empty: (p) => sql`coalesce(${p} ->> 'text', '') = ''`,
};

/** `%`, `_` and the escape character itself, escaped for LIKE/ILIKE (default escape `\`). */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

function textType<Name extends string>(
  name: Name,
  example: string,
  extra?: (s: string) => string | undefined,
): PropertyType<Name, TextStored> {
  return define({
    name,
    shape: TEXT_SHAPE,
    example,
    check: (v, def, hint) => checkText(v, def, hint, extra),
    filter: TEXT_FILTER,
    sort: { value: (p) => sql`${p} -> 'text'` },
    fromImport: (v) => ({ text: String(v) }),
  });
}

export const text = textType('text', '{ "text": "…" }');

export const url = textType('url', '{ "text": "https://…" }', (s) =>
  isHttpUrl(s) ? undefined : 'must be an absolute http:// or https:// URL',
);

export const email = textType('email', '{ "text": "name@example.com" }', (s) =>
  EMAIL.test(s) && s.length <= 254 ? undefined : 'must be an e-mail address like name@example.com',
);
