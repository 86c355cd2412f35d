/**
 * DISTINCT for any aggregate: a Map from value (the argument itself, or the encoded combination
 * of several arguments) to how many rows of the group carry it, in front of the underlying
 * aggregate. The aggregate sees a value only when its count goes 0 → 1 and a retraction only when
 * it goes 1 → 0. With several arguments an entry is `[count, ...arguments]`, so that a merge can
 * replay the arguments into the underlying aggregate. A single argument whose values are objects
 * (BYTES, ROW, ARRAY, MAP: equal values are distinct objects) is keyed by its encoding the same
 * way, never by identity.
 */
import { encodeComponent } from '../../common/key-codec.js';
import type { AggregateCodegen, SourceScope } from '../../expr/aggregates/aggregate-codegen.js';

/**
 * `inner` applied to distinct values of `arity` arguments; its slots follow the value-count map's
 * slot. `objectValued`: some argument's values are objects, which must be keyed by their encoding.
 */
export function distinctAggregate(inner: AggregateCodegen, scope: SourceScope, arity: number, objectValued = false): AggregateCodegen {
  const innerSlots = (slots: readonly string[]) => slots.slice(1);
  const single = arity <= 1 && !objectValued;
  const encode = scope.bind(encodeComponent, 'encodeComponent');
  const keyOf = (args: readonly string[]): string => (single ? (args[0] ?? 'null') : args.map((a) => `${encode}(${a})`).join(' + '));
  return {
    slots: 1 + inner.slots,
    ...(inner.acceptsNulls === true ? { acceptsNulls: true } : {}),
    init: (slots) => `${slots[0]} = new Map(); ${inner.init(innerSlots(slots))}`,
    accumulate: (slots, args) => {
      const [seen, key] = [scope.local('seen'), scope.local('key')];
      const first = single ? '1' : `[1, ${args.join(', ')}]`;
      const increment = single ? `${slots[0]}.set(${key}, ${seen} + 1)` : `${seen}[0]++`;
      return `{ const ${key} = ${keyOf(args)}; const ${seen} = ${slots[0]}.get(${key});
        if (${seen} === undefined) { ${slots[0]}.set(${key}, ${first}); ${inner.accumulate(innerSlots(slots), args)} }
        else ${increment}; }`;
    },
    retract: (slots, args) => {
      const [seen, key] = [scope.local('seen'), scope.local('key')];
      const count = single ? seen : `${seen}[0]`;
      const decrement = single ? `${slots[0]}.set(${key}, ${seen} - 1)` : `${seen}[0]--`;
      return `{ const ${key} = ${keyOf(args)}; const ${seen} = ${slots[0]}.get(${key});
        if (${seen} !== undefined && ${count} === 1) { ${slots[0]}.delete(${key}); ${inner.retract(innerSlots(slots), args)} }
        else if (${seen} !== undefined) ${decrement}; }`;
    },
    merge: (slots, from) => {
      const [key, entry, seen] = [scope.local('key'), scope.local('entry'), scope.local('seen')];
      const replayed = single ? [key] : Array.from({ length: arity }, (_, i) => `${entry}[${i + 1}]`);
      const copy = single ? entry : `${entry}.slice()`;
      const add = single ? `${slots[0]}.set(${key}, ${seen} + ${entry})` : `${seen}[0] += ${entry}[0]`;
      return `for (const [${key}, ${entry}] of ${from[0]}) {
        const ${seen} = ${slots[0]}.get(${key});
        if (${seen} === undefined) { ${slots[0]}.set(${key}, ${copy}); ${inner.accumulate(innerSlots(slots), replayed)} }
        else ${add}; }`;
    },
    result: (slots) => inner.result(innerSlots(slots)),
  };
}
