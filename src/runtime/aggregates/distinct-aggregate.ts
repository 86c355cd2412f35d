/**
 * DISTINCT for any aggregate: a Map from value to how many rows of the group carry it, in front
 * of the underlying aggregate. The aggregate sees a value only when its count goes 0 → 1 and a
 * retraction only when it goes 1 → 0.
 */
import type { AggregateCodegen, SourceScope } from './aggregate-codegen.js';

/** `inner` applied to distinct values; its slots follow the value-count map's slot. */
export function distinctAggregate(inner: AggregateCodegen, scope: SourceScope): AggregateCodegen {
  const innerSlots = (slots: readonly string[]) => slots.slice(1);
  return {
    slots: 1 + inner.slots,
    init: (slots) => `${slots[0]} = new Map(); ${inner.init(innerSlots(slots))}`,
    accumulate: (slots, v) => {
      const seen = scope.local('seen');
      return `{ const ${seen} = ${slots[0]}.get(${v});
        if (${seen} === undefined) { ${slots[0]}.set(${v}, 1); ${inner.accumulate(innerSlots(slots), v)} }
        else ${slots[0]}.set(${v}, ${seen} + 1); }`;
    },
    retract: (slots, v) => {
      const seen = scope.local('seen');
      return `{ const ${seen} = ${slots[0]}.get(${v});
        if (${seen} === 1) { ${slots[0]}.delete(${v}); ${inner.retract(innerSlots(slots), v)} }
        else if (${seen} !== undefined) ${slots[0]}.set(${v}, ${seen} - 1); }`;
    },
    merge: (slots, from) => {
      const [value, count, seen] = [scope.local('value'), scope.local('count'), scope.local('seen')];
      return `for (const [${value}, ${count}] of ${from[0]}) {
        const ${seen} = ${slots[0]}.get(${value});
        if (${seen} === undefined) { ${slots[0]}.set(${value}, ${count}); ${inner.accumulate(innerSlots(slots), value)} }
        else ${slots[0]}.set(${value}, ${seen} + ${count}); }`;
    },
    result: (slots) => inner.result(innerSlots(slots)),
  };
}
