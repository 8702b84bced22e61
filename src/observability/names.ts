/** The label for requests whose operation is not known (a parse error, an unmatched path). */
export const NO_OPERATION = '(none)';
/** The label for every operation name past the first `max` distinct ones. */
export const OTHER = 'other';

const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/**
 * Operation names as metric labels, from a bounded set: the first `max` distinct names seen keep
 * their own label, every later one (and anything that is not a short GraphQL name) is `other`.
 * Clients choose GraphQL operation names, so without the bound each new name would add series.
 */
export class BoundedNames {
  private readonly seen = new Set<string>();
  constructor(readonly max = 100) {}

  label(name: string | null | undefined): string {
    if (!name) return '(anonymous)';
    if (this.seen.has(name)) return name;
    if (this.seen.size >= this.max || !NAME.test(name)) return OTHER;
    this.seen.add(name);
    return name;
  }
}
