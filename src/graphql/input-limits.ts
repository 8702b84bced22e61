import { type DocumentNode, Kind, Lexer, Source, TokenKind, visit } from 'graphql';
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

/** Refuses query text over the byte limit, or nested deeper than `maxNesting`, before it is parsed. */
export function checkQueryText(query: string, limits: GraphQLLimits): void {
  const bytes = Buffer.byteLength(query);
  if (bytes > limits.maxQueryBytes)
    throw new AppError(
      'QUERY_TOO_COMPLEX',
      `The query text is ${bytes} bytes; the limit is ${limits.maxQueryBytes}.`,
    );
  const max = maxNesting(limits);
  const lexer = new Lexer(new Source(query));
  let level = 0;
  // Past the token limit, or at a syntax error, the parser's own error is the clearer answer.
  for (let tokens = 0; tokens <= limits.maxTokens; tokens++) {
    let kind: TokenKind;
    try {
      kind = lexer.advance().kind;
    } catch {
      return;
    }
    if (kind === TokenKind.EOF) return;
    if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) {
      if (++level > max)
        throw new AppError(
          'QUERY_TOO_COMPLEX',
          `The query nests braces, brackets and parentheses more than ${max} levels deep. Flatten it, or pass deep input values as variables.`,
        );
    } else if (kind === TokenKind.BRACE_R || kind === TokenKind.BRACKET_R || kind === TokenKind.PAREN_R) {
      level--;
    }
  }
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
