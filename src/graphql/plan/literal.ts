/**
 * Builders of answer objects whose keys a plan fixes: each is compiled once into a function that
 * returns one object literal, `{ "id": f0(a, b, c), "values": f1(a, b, c) }`.
 *
 * A nested page writes tens of thousands of small objects (a value, an option, a record). Filled in
 * a loop, `out[key] = …`, every one went through V8's megamorphic keyed store and load, because the
 * keys vary from field to field; a literal gets one fixed shape and plain stores
 * (docs/decisions.md#planned-answers-are-compiled-object-literals). The generated text holds only
 * the keys, written with JSON.stringify, and names we choose; every value and function comes in as
 * a parameter of the outer function.
 */
export type Part<A extends unknown[]> =
  | { key: string; value: unknown }
  | { key: string; compute: (...args: A) => unknown };

export type Builder<A extends unknown[]> = (...args: A) => Record<string, unknown>;

/**
 * Keys that an object literal would not write as own properties of the answer. `__proto__` sets
 * the prototype; the plan leaves an alias of that name to the executor (plan.ts).
 */
export const UNWRITABLE_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/** A builder of objects with these parts, in this order, from `arity` arguments. */
export function literal<A extends unknown[]>(parts: readonly Part<A>[], arity: number): Builder<A> {
  const args = Array.from({ length: arity }, (_, i) => `a${i}`).join(', ');
  const members = parts.map((p, i) => {
    if (UNWRITABLE_KEYS.has(p.key)) throw new Error(`${p.key} cannot be a key of a planned answer`);
    return `${JSON.stringify(p.key)}: ${'value' in p ? `p${i}` : `p${i}(${args})`}`;
  });
  const body = `"use strict"; return function build(${args}) { return { ${members.join(', ')} }; };`;
  const make = new Function(...parts.map((_, i) => `p${i}`), body);
  return make(...parts.map((p) => ('value' in p ? p.value : p.compute))) as Builder<A>;
}

/**
 * `make` compiled once per key, a part of a plan (fixed for the plan's life, which is cached per
 * document): the first call per key compiles, later calls return that builder.
 */
export function oncePer<K extends object, A extends unknown[]>(
  make: (key: K) => Builder<A>,
): (key: K) => Builder<A> {
  const built = new WeakMap<K, Builder<A>>();
  return (key) => {
    let build = built.get(key);
    if (!build) {
      build = make(key);
      built.set(key, build);
    }
    return build;
  };
}
