/**
 * JSON text as `JSON.stringify` writes it, built in pieces of about 16 K characters and turned into
 * UTF-8 bytes piece by piece.
 *
 * One `JSON.stringify` of a large answer, then one `Buffer.from` of the result, is slow in V8 for
 * large strings: several times slower than the same text in pieces. Joining small strings into one
 * large one and converting that was as slow, so the cost is the large string itself; pieces stay
 * small, ordinary strings (docs/decisions.md#large-answers-are-written-in-pieces-as-bytes).
 *
 * The walk descends plain objects and the first array it meets; each element of that array (a
 * record, an edge) is one `JSON.stringify`, so the bulk is still native. An answer that fits in one
 * piece stays a string, as before. A bare `undefined`, which JSON.stringify cannot write at all, is
 * written `null`.
 */
export function jsonBytes(value: unknown, suffix = ''): string | Buffer {
  const out = new Pieces();
  if (walkable(value)) walk(out, value);
  else out.add(JSON.stringify(value) ?? 'null');
  out.add(suffix);
  return out.end();
}

/**
 * A value's JSON written already (by `jsonBytes`), which a later `jsonBytes` of an answer holding it
 * copies as it is. The Executor hands /graphql a planned answer this way (graphql/executor.ts).
 */
export class WrittenJson {
  constructor(readonly json: string | Buffer) {}

  /** For any other serializer (JSON.stringify), the value again: correct, but parsed anew. */
  toJSON(): unknown {
    return JSON.parse(this.json.toString());
  }
}

/** The Content-Type Fastify gives the JSON it serializes itself. */
export const JSON_UTF8 = 'application/json; charset=utf-8';

/** About this many characters go to `Buffer.from` at once. */
const PIECE = 16_384;

class Pieces {
  private readonly done: Buffer[] = [];
  private text = '';

  add(s: string): void {
    this.text += s;
    if (this.text.length >= PIECE) {
      this.done.push(Buffer.from(this.text));
      this.text = '';
    }
  }

  /** JSON written already: text joins the current piece, bytes follow it. */
  addWritten(w: WrittenJson): void {
    if (typeof w.json === 'string') {
      this.add(w.json);
      return;
    }
    if (this.text) this.done.push(Buffer.from(this.text));
    this.text = '';
    this.done.push(w.json);
  }

  end(): string | Buffer {
    if (!this.done.length) return this.text;
    if (this.text) this.done.push(Buffer.from(this.text));
    return this.done.length === 1 ? this.done[0] : Buffer.concat(this.done);
  }
}

/** Objects and arrays whose text this walk writes; anything with `toJSON` (a Date) is JSON.stringify's. */
function walkable(v: unknown): v is object {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return (
    (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function'
  );
}

function walk(out: Pieces, v: object): void {
  if (Array.isArray(v)) {
    out.add('[');
    for (let i = 0; i < v.length; i++) {
      // As JSON.stringify: an element it cannot write (undefined, a function) is null.
      const s = JSON.stringify(v[i]) ?? 'null';
      out.add(i ? `,${s}` : s);
    }
    out.add(']');
    return;
  }
  out.add('{');
  let first = true;
  for (const key of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[key];
    const name = `${first ? '' : ','}${JSON.stringify(key)}:`;
    if (x instanceof WrittenJson) {
      out.add(name);
      out.addWritten(x);
    } else if (walkable(x)) {
      out.add(name);
      walk(out, x);
    } else {
      // As JSON.stringify: a member it cannot write is left out.
      const s = JSON.stringify(x);
      if (s === undefined) continue;
      out.add(name + s);
    }
    first = false;
  }
  out.add('}');
}
