/**
 * AVG: the running sum and count of SUM, divided when the result is read. Integer averages
 * truncate toward zero (Java's integer division), FLOAT/DOUBLE ones divide, and DECIMAL ones are
 * computed exactly at the result scale, rounded HALF_UP. The sum of integers is checked against
 * the BIGINT range and the sum of decimals against DECIMAL(38), as Flink types them.
 */
import { decimalToNumber, divideHalfUp, pow10 } from '../../common/decimal.js';
import { int64ToNumber, normalizeInt64, type Int64 } from '../../common/int64.js';
import { SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { AggregateFactory, SourceScope } from './aggregate-codegen.js';
import { unsupportedAggregate } from './aggregate-codegen.js';
import { numericClass, sumAccumulation, type NumericClass } from './sum-aggregate.js';

/** AVG: NULL while no non-NULL value is present. */
export const avgAggregate: AggregateFactory = (context) => {
  const { argTypes, type, scope } = context;
  const arg = argTypes.length === 1 ? numericClass(argTypes[0]!) : null;
  const result = numericClass(type);
  if (arg === null || result === null) throw unsupportedAggregate(context);
  const sumType = sumTypeOf(arg);
  const sum = sumAccumulation('AVG', arg, numericClass(sumType)!, sumType, scope);
  const divide = divisionSource(arg, result, scope);
  if (sum === null || divide === null) throw unsupportedAggregate(context);
  return { ...sum, result: ([s, n]) => `(${n} === 0 ? null : ${divide(s!, n!)})` };
};

function sumTypeOf(arg: NumericClass): SqlType {
  if (arg.kind === 'integer' || arg.kind === 'int64') return SqlTypes.bigint();
  if (arg.kind === 'float') return SqlTypes.double();
  return SqlTypes.decimal(38, arg.scale);
}

/** Source that divides sum `s` by count `n` into the result class, or null when unsupported. */
function divisionSource(arg: NumericClass, result: NumericClass, scope: SourceScope): ((s: string, n: string) => string) | null {
  const integral = (c: NumericClass) => c.kind === 'integer' || c.kind === 'int64';
  if (integral(arg) && integral(result)) {
    const divide = scope.bind(truncatingDivide, 'truncatingDivide');
    return (s, n) => `${divide}(${s}, ${n})`;
  }
  if (integral(arg) && result.kind === 'float') {
    const toNumber = scope.bind(int64ToNumber, 'int64ToNumber');
    return result.single === true ? (s, n) => `Math.fround(${toNumber}(${s}) / ${n})` : (s, n) => `${toNumber}(${s}) / ${n}`;
  }
  if (arg.kind !== 'decimal' && result.kind === 'float') return result.single === true ? (s, n) => `Math.fround(${s} / ${n})` : (s, n) => `${s} / ${n}`;
  if (arg.kind === 'decimal' && result.kind === 'float') {
    const toNumber = scope.bind(decimalToNumber, 'decimalToNumber');
    return (s, n) => `${toNumber}(${s}, ${arg.scale}) / ${n}`;
  }
  if (arg.kind === 'decimal' && result.kind === 'decimal') {
    const divide = scope.bind(divideHalfUp, 'divideHalfUp');
    const shift = result.scale - arg.scale;
    if (shift >= 0) return (s, n) => `${divide}(${s}${shift === 0 ? '' : ` * ${pow10(shift)}n`}, BigInt(${n}))`;
    return (s, n) => `${divide}(${s}, BigInt(${n}) * ${pow10(-shift)}n)`;
  }
  return null;
}

/**
 * `sum / count` truncated toward zero, exact: for a safe-integer sum the floating-point quotient
 * can be one off near an integer, so it is corrected by the sign and size of the remainder; a
 * bigint sum (a BIGINT beyond 2^53) is divided as a bigint.
 */
export function truncatingDivide(sum: Int64, count: number): Int64 {
  if (typeof sum === 'bigint') return normalizeInt64(sum / BigInt(count));
  let q = Math.trunc(sum / count);
  const r = sum - q * count;
  if (sum >= 0) {
    if (r < 0) q--;
    else if (r >= count) q++;
  } else if (r > 0) q++;
  else if (r <= -count) q--;
  return q === 0 ? 0 : q;
}
