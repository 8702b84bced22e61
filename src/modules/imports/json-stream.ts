/**
 * The features of a GeoJSON FeatureCollection, one at a time, from its text given in chunks of any
 * size: the file is never held whole. Only the top-level object is scanned here; each element of
 * `features` is cut out as text and left to JSON.parse, so a feature that is not valid JSON is named
 * by its index and line while the features around it are still read.
 */

/** One element of `features`: its text, its index, and the line (1-based) it starts on. */
export interface CollectionElement {
  text: string;
  index: number;
  line: number;
}

/** The file is not a FeatureCollection that can be read: what is wrong and where. */
export class CollectionSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (line ${line})`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const NEWLINE = 0x0a;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === NEWLINE || c === 0x0d || c === 0xfeff;

/**
 * Feed it the file's text with `push` (any chunk sizes, the same elements come out) and call `end`
 * once the text is over; each returns the elements completed so far. Memory: the current element
 * and the current chunk.
 */
export class FeatureCollectionSplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private line = 1;
  private started = false;
  private closed = false;
  /** Inside the top-level object: reading a member's key, or its value. */
  private expect: 'key' | 'value' = 'key';
  private key: string | undefined;
  /** The text being captured (a top-level key, the `type` value, or an element), in pieces. */
  private capture: string[] | null = null;
  /** The line the current element starts on; 0 until its first character. */
  private elementLine = 0;
  private inFeatures = false;
  private sawFeatures = false;
  private type: unknown;
  private index = 0;

  push(chunk: string): CollectionElement[] {
    const out: CollectionElement[] = [];
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === NEWLINE) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.depth === 1 && this.expect === 'key') {
            this.capture!.push(chunk.slice(from, i + 1));
            this.key = JSON.parse(this.capture!.join('')) as string;
            this.capture = null;
          }
        }
        continue;
      }
      if (this.closed) {
        if (!isSpace(c))
          throw new CollectionSyntaxError('Unexpected text after the FeatureCollection', this.line);
        continue;
      }
      if (!this.started) {
        if (isSpace(c)) continue;
        if (c !== OPEN_OBJ)
          throw new CollectionSyntaxError(
            'This is not a GeoJSON FeatureCollection: the file must start with "{"',
            this.line,
          );
        this.started = true;
        this.depth = 1;
        continue;
      }
      if (
        this.inFeatures &&
        this.depth === 2 &&
        this.elementLine === 0 &&
        !isSpace(c) &&
        c !== COMMA &&
        c !== CLOSE_ARR
      )
        this.elementLine = this.line;
      if (c === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.expect === 'key') {
          this.capture = [];
          from = i;
        }
        continue;
      }
      if (this.inFeatures && this.depth === 2 && (c === COMMA || c === CLOSE_ARR)) {
        this.capture!.push(chunk.slice(from, i));
        const text = this.capture!.join('');
        if (text.trim() || c === COMMA)
          out.push({ text, index: this.index++, line: this.elementLine || this.line });
        this.elementLine = 0;
        if (c === COMMA) {
          this.capture = [];
          from = i + 1;
        } else {
          this.capture = null;
          this.inFeatures = false;
          this.depth = 1;
        }
        continue;
      }
      if (this.depth === 1) {
        if (c === COLON && this.expect === 'key') {
          this.expect = 'value';
          if (this.key === 'type') {
            this.capture = [];
            from = i + 1;
          }
          continue;
        }
        if (c === COMMA || c === CLOSE_OBJ) {
          this.endMember(chunk.slice(from, i));
          if (c === CLOSE_OBJ) {
            this.depth = 0;
            this.closed = true;
          }
          continue;
        }
        if (this.expect === 'value' && this.key === 'features' && !isSpace(c)) {
          if (c !== OPEN_ARR)
            throw new CollectionSyntaxError('"features" must be an array of Features', this.line);
          this.depth = 2;
          this.inFeatures = true;
          this.sawFeatures = true;
          this.capture = [];
          from = i + 1;
          continue;
        }
      }
      if (c === OPEN_OBJ || c === OPEN_ARR) this.depth++;
      else if (c === CLOSE_OBJ || c === CLOSE_ARR) this.depth--;
    }
    if (this.capture) this.capture.push(chunk.slice(from));
    return out;
  }

  /** Where the text is now: the line being read. */
  get currentLine(): number {
    return this.line;
  }

  private endMember(rest: string) {
    if (this.key === 'type' && this.capture) {
      this.capture.push(rest);
      try {
        this.type = JSON.parse(this.capture.join(''));
      } catch {
        this.type = undefined;
      }
    }
    this.capture = null;
    this.key = undefined;
    this.expect = 'key';
  }

  /** The text is over: it must have been a whole FeatureCollection. */
  end(): CollectionElement[] {
    if (!this.started)
      throw new CollectionSyntaxError('The file is empty: expected a GeoJSON FeatureCollection', this.line);
    if (!this.closed)
      throw new CollectionSyntaxError(
        'The file ends before its FeatureCollection does (cut short while copying?)',
        this.line,
      );
    if (this.type !== 'FeatureCollection')
      throw new CollectionSyntaxError(
        `The file must be a GeoJSON FeatureCollection (its "type" is ${this.type === undefined ? 'missing' : JSON.stringify(this.type)})`,
        this.line,
      );
    if (!this.sawFeatures)
      throw new CollectionSyntaxError('The FeatureCollection has no "features" array', this.line);
    return [];
  }
}
