/**
 * JSON_ARRAYAGG and JSON_OBJECTAGG, as Flink's JsonArrayAggFunction and JsonObjectAggFunction:
 * values are serialized to JSON when they arrive (see runtime/json-lib.ts), an array keeps them
 * in arrival order (a retraction removes the earliest equal one), an object keeps one value per
 * key (a second value for a key present is an error, a retraction removes the key) and is written
 * with its keys sorted. Both give `[]` / `{}` over no values, never NULL. With ABSENT ON NULL a
 * NULL value is skipped; with NULL ON NULL it is written as `null`.
 */
import { WeirError } from '../../common/errors.js';
import { jsonObjectOf, jsonQuote, jsonSerializer } from '../runtime/json-lib.js';
import { refuseRetraction, type AggregateFactory } from './aggregate-codegen.js';
import { listAggregate } from './value-aggregates.js';

/** JSON_ARRAYAGG, keeping NULLs as `null` when `nullOnNull`; `nested` when the values are JSON already (a JSON_OBJECT or JSON_ARRAY argument). */
export function jsonArrayAggAggregate(nullOnNull: boolean, nested = false): AggregateFactory {
  return (context) => {
    const serialize = context.scope.bind(nested ? (json: string) => json : jsonSerializer(context.argTypes[0]!), 'toJson');
    return listAggregate(context, {
      acceptsNulls: nullOnNull,
      convert: (v) => `(${v} == null ? 'null' : ${serialize}(${v}))`,
      finish: (array) => `'[' + ${array}.join(',') + ']'`,
      empty: "'[]'",
    });
  };
}

/** Adds `key: json` to the object accumulator; a key already present is an error, as in Flink. */
export function jsonObjectPut(entries: Map<string, string>, key: string, json: string): void {
  if (entries.has(key)) throw new WeirError('EXECUTION_ERROR', `JSON_OBJECTAGG: key ${jsonQuote(key)} appears more than once`);
  entries.set(key, json);
}

/** The object text of the accumulator. */
export function jsonObjectText(entries: Map<string, string>): string {
  return jsonObjectOf([...entries]);
}

/** JSON_OBJECTAGG, keeping NULL values as `null` when `nullOnNull` (a NULL key skips the row); `nested` when the values are JSON already. */
export function jsonObjectAggAggregate(nullOnNull: boolean, nested = false): AggregateFactory {
  return ({ scope, argTypes, retractable }) => {
    const serialize = scope.bind(nested ? (json: string) => json : jsonSerializer(argTypes[1]!), 'toJson');
    const put = scope.bind(jsonObjectPut, 'jsonObjectPut');
    const text = scope.bind(jsonObjectText, 'jsonObjectText');
    const value = (v: string) => `(${v} == null ? 'null' : ${serialize}(${v}))`;
    const guard = (k: string, v: string) => (nullOnNull ? `${k} != null` : `${k} != null && ${v} != null`);
    return {
      slots: 1,
      acceptsNulls: true,
      init: ([m]) => `${m} = new Map();`,
      accumulate: ([m], [k, v]) => `if (${guard(k!, v!)}) ${put}(${m}, ${k}, ${value(v!)});`,
      retract: ([m], [k, v]) => (retractable ? `if (${guard(k!, v!)}) ${m}.delete(${k});` : refuseRetraction(scope, 'JSON_OBJECTAGG')),
      merge: ([m], [other]) => `for (const [k, v] of ${other}) ${put}(${m}, k, v);`,
      result: ([m]) => `${text}(${m})`,
    };
  };
}
