/** The label for requests whose operation is not known (a parse error, an unmatched path). */
export const NO_OPERATION = '(none)';
/** The label for every operation name past the first `max` distinct ones. */
export const OTHER = 'other';

const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** Whose operation a name is: an org id, or the orgs of a key that reaches several. */
export type NameClaimant = string | readonly string[];

/**
 * Operation names as metric labels, from a bounded set: the first `max` distinct names seen keep
 * their own label, every later one (and anything that is not a short GraphQL name) is `other`.
 * Clients choose GraphQL operation names, so without the bound each new name would add series.
 *
 * The slots are shared fairly: a name is claimed by the organization that sent it first, and one
 * organization claims at most `perOrg` of them; its further new names are `other`, so one tenant
 * inventing names cannot take the labels of everyone else's operations. A name claimed already
 * keeps its label for every caller. A key that reaches several organizations claims as that set
 * (not as each of them: a guest in another org must not spend that org's share). A call without
 * an org (one the caller could not attribute) is bounded by `max` alone.
 */
export class BoundedNames {
  private readonly seen = new Set<string>();
  /** Slots claimed per organization (or set of organizations); at most `max` entries. */
  private readonly claimed = new Map<string, number>();

  constructor(
    readonly max = 100,
    readonly perOrg = Math.max(1, Math.floor(max / 10)),
  ) {}

  label(name: string | null | undefined, org?: NameClaimant): string {
    if (!name) return '(anonymous)';
    if (this.seen.has(name)) return name;
    if (this.seen.size >= this.max || !NAME.test(name)) return OTHER;
    if (org !== undefined) {
      const who = typeof org === 'string' ? org : [...org].sort().join(',');
      const n = this.claimed.get(who) ?? 0;
      if (n >= this.perOrg) return OTHER;
      this.claimed.set(who, n + 1);
    }
    this.seen.add(name);
    return name;
  }
}
