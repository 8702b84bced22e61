import { type DocumentNode, Kind, Lexer, Source, type Token, TokenKind, visit } from 'graphql';
import { AppError } from '../errors.js';
import type { GraphQLLimits } from './limits.js';

/**
 * Bounds on what graphql-js handles by recursion: the parser (one call per level of `{`, `[` and
 * `(`) and input coercion (one call per level of a variable's objects and lists). Past a few
 * thousand levels either one overflows the stack, which surfaced as a 500 or as a parse error
 * quoting "Maximum call stack size exceeded". These checks run before either, and walk without
 * recursion.
 */

/** Deepest bracket nesting a query text may have: room for the deepest selection and input value. */
export const maxNesting = (limits: GraphQLLimits) => 2 * (limits.maxDepth + limits.maxInputDepth);

// Read once: under the test runner, each read through the imported module is a lookup per token.
const { AT, BRACE_L, BRACE_R, BRACKET_L, BRACKET_R, COLON, EOF, NAME, PAREN_L, PAREN_R, SPREAD } = TokenKind;

/**
 * Refuses query text over the byte limit, nested deeper than `maxNesting`, or with an operation
 * that has more aliases or fields than the limits allow, before it is parsed.
 *
 * The aliases and fields are counted here because graphql-js validates a document before the
 * Executor measures it, and validation (OverlappingFieldsCanBeMerged) compares every pair of
 * fields that share a response name: a few kilobytes of aliases cost it far more CPU than the
 * limits would let the operation cost later.
 */
export function checkQueryText(query: string, limits: GraphQLLimits): void {
  const bytes = Buffer.byteLength(query);
  if (bytes > limits.maxQueryBytes)
    throw new AppError(
      'QUERY_TOO_COMPLEX',
      `The query text is ${bytes} bytes; the limit is ${limits.maxQueryBytes}.`,
    );
  const max = maxNesting(limits);
  const lexer = new Lexer(new Source(query));
  const shape = new DocumentShape();
  let level = 0;
  // Past the token limit, or at a syntax error, the parser's own error is the clearer answer.
  for (let tokens = 0; tokens <= limits.maxTokens; tokens++) {
    let token: Token;
    try {
      token = lexer.advance();
    } catch {
      return;
    }
    const kind = token.kind;
    if (kind === EOF) {
      checkShape(shape, limits);
      return;
    }
    if (kind === BRACE_L || kind === BRACKET_L || kind === PAREN_L) {
      if (++level > max)
        throw new AppError(
          'QUERY_TOO_COMPLEX',
          `The query nests braces, brackets and parentheses more than ${max} levels deep. Flatten it, or pass deep input values as variables.`,
        );
    } else if (kind === BRACE_R || kind === BRACKET_R || kind === PAREN_R) {
      level--;
    }
    shape.read(kind, token.value);
  }
}

/** One operation or fragment of a document, as far as its tokens tell. */
interface Definition {
  operation: boolean;
  name?: string;
  aliases: number;
  fields: number;
  /** The fragments it spreads, anywhere in its selections. */
  spreads: string[];
}

/**
 * The operations and fragments of a document, with their aliases, fields and fragment spreads,
 * read from its tokens alone. A colon inside parentheses belongs to an argument, a variable
 * definition or an input object field; outside them, inside a selection set, it follows an alias.
 */
class DocumentShape {
  readonly definitions: Definition[] = [];
  private current: Definition | undefined;
  private parens = 0;
  private braces = 0;
  private previous: TokenKind | undefined;
  /** The previous token was the `query`/`mutation`/`subscription`/`fragment` that opened a definition. */
  private keyword = false;
  /** The previous token was the `on` of an inline fragment: a type condition follows. */
  private typeCondition = false;

  read(kind: TokenKind, value: string | undefined): void {
    const previous = this.previous;
    const keyword = this.keyword;
    const typeCondition = this.typeCondition;
    this.previous = kind;
    this.keyword = false;
    this.typeCondition = false;
    if (kind === PAREN_L) this.parens++;
    else if (kind === PAREN_R) this.parens--;
    if (this.parens > 0 || kind === PAREN_R) return;

    if (kind === BRACE_L) {
      if (this.braces++ === 0) this.current ??= this.open(true);
    } else if (kind === BRACE_R) {
      if (--this.braces === 0) this.current = undefined;
    } else if (kind === NAME && this.braces === 0) {
      if (!this.current && value === 'fragment') this.current = this.open(false);
      else if (!this.current && (value === 'query' || value === 'mutation' || value === 'subscription'))
        this.current = this.open(true);
      else if (this.current && keyword) {
        this.current.name = value;
        return;
      } else return;
      this.keyword = true;
    } else if (this.current && this.braces > 0) {
      if (kind === NAME) {
        if (previous === SPREAD) {
          if (value === 'on') this.typeCondition = true;
          else this.current.spreads.push(value!);
        } else if (!typeCondition && previous !== AT) this.current.fields++;
      } else if (kind === COLON && previous === NAME) {
        // The name before was an alias, not a field; the field's name follows.
        this.current.aliases++;
        this.current.fields--;
      }
    }
  }

  private open(operation: boolean): Definition {
    const d: Definition = { operation, aliases: 0, fields: 0, spreads: [] };
    this.definitions.push(d);
    return d;
  }
}

/**
 * Refuses an operation whose aliases or fields exceed the limits, each fragment counted wherever it
 * is spread, as the Executor counts them (src/graphql/limits.ts). Every operation of the document is
 * held to the limits, not only the one that runs, since validation compares the fields of all of
 * them. A fragment no operation spreads makes the document invalid; it is held to them alone.
 */
function checkShape(shape: DocumentShape, limits: GraphQLLimits): void {
  const fragments = new Map<string, Definition[]>();
  for (const d of shape.definitions)
    if (!d.operation && d.name !== undefined) fragments.set(d.name, [...(fragments.get(d.name) ?? []), d]);
  const totals = new Map<Definition, Counts>();
  // Each definition is summed once; its depth is bounded by the token limit, and a cycle (which
  // validation refuses) counts as nothing.
  const total = (d: Definition): Counts => {
    const known = totals.get(d);
    if (known) return known;
    const t = { aliases: d.aliases, fields: d.fields };
    totals.set(d, { aliases: 0, fields: 0 });
    for (const name of d.spreads)
      for (const f of fragments.get(name) ?? []) {
        const inner = total(f);
        t.aliases = Math.min(CEILING, t.aliases + inner.aliases);
        t.fields = Math.min(CEILING, t.fields + inner.fields);
      }
    totals.set(d, t);
    return t;
  };
  const operations = shape.definitions.filter((d) => d.operation);
  for (const op of operations)
    checkCounts(
      operations.length === 1 || !op.name ? 'The query' : `Operation "${op.name}"`,
      total(op),
      limits,
    );
  for (const d of shape.definitions)
    if (!d.operation && !totals.has(d)) checkCounts(`Fragment "${d.name}"`, total(d), limits);
}

interface Counts {
  aliases: number;
  fields: number;
}

/** Sums stop growing here, far above every limit: fragments can spread each other exponentially often. */
const CEILING = 1e15;

function checkCounts(what: string, { aliases, fields }: Counts, limits: GraphQLLimits): void {
  if (aliases > limits.maxAliases)
    throw new AppError(
      'QUERY_TOO_COMPLEX',
      `${what} uses ${aliases} aliases (fragments counted wherever they are spread); the limit is ${limits.maxAliases}.`,
    );
  if (fields > limits.maxFields)
    throw new AppError(
      'QUERY_TOO_COMPLEX',
      `${what} selects ${fields} fields (fragments counted wherever they are spread); the limit is ${limits.maxFields}.`,
    );
}

const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Refuses variable values nested deeper than `maxInputDepth` objects and lists, and strings that are
 * not valid Unicode (a lone UTF-16 surrogate, which JSON can carry and neither Postgres nor UTF-8
 * can). Iterative, and stops at the first problem.
 */
export function checkVariables(variables: Record<string, unknown>, maxInputDepth: number): void {
  for (const [name, value] of Object.entries(variables)) {
    const stack: [unknown, number][] = [[value, 0]];
    while (stack.length) {
      const [v, depth] = stack.pop()!;
      if (typeof v === 'string') {
        if (LONE_SURROGATE.test(v))
          throw new AppError('VALIDATION_FAILED', `Variable $${name} holds text that is not valid Unicode.`, [
            {
              field: `$${name}`,
              reason: 'holds a lone UTF-16 surrogate (\\ud800-\\udfff); send valid Unicode text',
            },
          ]);
      } else if (v !== null && typeof v === 'object') {
        if (depth + 1 > maxInputDepth)
          throw new AppError(
            'VALIDATION_FAILED',
            `Variable $${name} nests objects and lists more than ${maxInputDepth} levels deep; the limit is ${maxInputDepth}.`,
            [{ field: `$${name}`, reason: `nests more than ${maxInputDepth} levels deep` }],
          );
        for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
      }
    }
  }
}

/**
 * Refuses input literals in the document (arguments, variable defaults) nested deeper than
 * `maxInputDepth` objects and lists. The visitor is iterative, and the text was already bounded.
 */
export function checkLiteralDepth(doc: DocumentNode, maxInputDepth: number): void {
  // Apollo hands the same DocumentNode to every request with the same text.
  if (checked.get(doc) === maxInputDepth) return;
  let level = 0;
  const enter = () => {
    if (++level > maxInputDepth)
      throw new AppError(
        'VALIDATION_FAILED',
        `An input value in the query nests objects and lists more than ${maxInputDepth} levels deep; the limit is ${maxInputDepth}.`,
      );
  };
  const leave = () => {
    level--;
  };
  visit(doc, {
    [Kind.OBJECT]: { enter, leave },
    [Kind.LIST]: { enter, leave },
  });
  checked.set(doc, maxInputDepth);
}

/** Documents whose literals were found within a depth bound, and that bound. */
const checked = new WeakMap<DocumentNode, number>();
