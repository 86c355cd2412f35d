/**
 * VAR_POP, VAR_SAMP, STDDEV_POP and STDDEV_SAMP (VARIANCE and STDDEV are the sample forms), as
 * Flink computes them after its AggregateReduceFunctionsRule: from the count, the sum and the sum
 * of squares, `(Σx² − (Σx)²/n) / n` (or `/ (n − 1)`, NULL for one value), and the square root of
 * that. The result has the argument's type (DECIMAL(p, s) gives DECIMAL(38, max(6, s))):
 * FLOAT/DOUBLE arguments are summed as doubles; integer arguments exactly, as bigints, with the
 * integer divisions of Flink's rewrite (so VAR_POP of INTs is an INT, truncated); DECIMAL arguments
 * exactly, the variance rounded HALF_UP to the result scale (NULL when it does not fit, as a Flink
 * DECIMAL overflow). A square root goes through DOUBLE, as Flink's POWER(v, 0.5). Every
 * accumulator is `[n, Σx, Σx²]` and retracts in O(1).
 */
import { decimalFromNumber, decimalToNumber, divideHalfUp, fitsPrecision, pow10 } from '../../common/decimal.js';
import { wrapInt64, type Int64 } from '../../common/int64.js';
import { isIntegerType, MAX_DECIMAL_PRECISION, type SqlType } from '../../common/sql-type.js';
import { unsupportedAggregate, type AggregateFactory } from './aggregate-codegen.js';

/** Which statistic. */
export type VarianceKind = 'VAR_POP' | 'VAR_SAMP' | 'STDDEV_POP' | 'STDDEV_SAMP';

const isSample = (kind: VarianceKind): boolean => kind === 'VAR_SAMP' || kind === 'STDDEV_SAMP';
const isRoot = (kind: VarianceKind): boolean => kind === 'STDDEV_POP' || kind === 'STDDEV_SAMP';

/** The statistic of doubles from `[n, Σx, Σx²]`; NULL for no values, or one value of a sample statistic. */
export function approximateVariance(kind: VarianceKind, n: number, sum: number, sumSquares: number): number | null {
  const denominator = isSample(kind) ? n - 1 : n;
  if (n === 0 || denominator === 0) return null;
  const variance = (sumSquares - (sum * sum) / n) / denominator;
  return isRoot(kind) ? Math.pow(variance, 0.5) : variance;
}

/** The statistic of integers (exact sums), with Flink's integer divisions; a bigint to be narrowed to the result type. */
export function integerVariance(kind: VarianceKind, n: number, sum: bigint, sumSquares: bigint): bigint | null {
  const denominator = isSample(kind) ? n - 1 : n;
  if (n === 0 || denominator === 0) return null;
  const variance = (sumSquares - (sum * sum) / BigInt(n)) / BigInt(denominator);
  return isRoot(kind) ? BigInt(Math.trunc(Math.pow(Number(variance), 0.5))) : variance;
}

/**
 * The statistic of DECIMALs of scale `scale` (exact sums: Σx at `scale`, Σx² at twice it), as the
 * unscaled value of a DECIMAL(38, resultScale); NULL when it does not fit.
 */
export function decimalVariance(kind: VarianceKind, n: number, sum: bigint, sumSquares: bigint, scale: number, resultScale: number): bigint | null {
  const denominator = isSample(kind) ? n - 1 : n;
  if (n === 0 || denominator === 0) return null;
  const count = BigInt(n);
  const numerator = (count * sumSquares - sum * sum) * pow10(resultScale);
  const variance = divideHalfUp(numerator, count * BigInt(denominator) * pow10(2 * scale));
  const result = isRoot(kind) ? (decimalFromNumber(Math.pow(decimalToNumber(variance, resultScale), 0.5), resultScale) ?? null) : variance;
  return result !== null && fitsPrecision(result, MAX_DECIMAL_PRECISION) ? result : null;
}

const INTEGER_BITS: Readonly<Record<string, number>> = { TINYINT: 8, SMALLINT: 16, INT: 32 };

/** The result narrowed to an integer type as a Java cast does (wrapping to 8, 16, 32 or 64 bits; a BIGINT in its normalized form). */
export function narrowInteger(value: bigint | null, kind: SqlType['kind']): Int64 | null {
  if (value === null) return null;
  const bits = INTEGER_BITS[kind];
  return bits === undefined ? wrapInt64(value) : Number(BigInt.asIntN(bits, value));
}

/** The generator of one of the four statistics. */
export function varianceAggregate(kind: VarianceKind): AggregateFactory {
  return (context) => {
    const { argTypes, type, scope } = context;
    const arg = argTypes[0];
    if (argTypes.length !== 1 || arg === undefined) throw unsupportedAggregate(context);
    const reset = (n: string, s: string, q: string, zero: string) => `if (${n} === 0) { ${s} = ${zero}; ${q} = ${zero}; }`;
    if (arg.kind === 'FLOAT' || arg.kind === 'DOUBLE') {
      const compute = scope.bind(approximateVariance, 'approximateVariance');
      const round = type.kind === 'FLOAT' ? 'Math.fround' : '';
      return {
        slots: 3,
        init: ([n, s, q]) => `${n} = 0; ${s} = 0; ${q} = 0;`,
        accumulate: ([n, s, q], [v]) => `${n}++; ${s} += ${v}; ${q} += ${v} * ${v};`,
        retract: ([n, s, q], [v]) => `${n}--; ${s} -= ${v}; ${q} -= ${v} * ${v}; ${reset(n!, s!, q!, '0')}`,
        merge: ([n, s, q], [m, t, r]) => `${n} += ${m}; ${s} += ${t}; ${q} += ${r};`,
        result: ([n, s, q]) => `(${n} === 0 ? null : ${round}(${compute}('${kind}', ${n}, ${s}, ${q})))`,
      };
    }
    if (!isIntegerType(arg) && arg.kind !== 'DECIMAL') throw unsupportedAggregate(context);
    const toBig = (v: string) => (arg.kind === 'DECIMAL' ? v : `BigInt(${v})`);
    const result =
      arg.kind === 'DECIMAL' && type.kind === 'DECIMAL'
        ? ([n, s, q]: readonly string[]) => `${scope.bind(decimalVariance, 'decimalVariance')}('${kind}', ${n}, ${s}, ${q}, ${arg.scale}, ${type.scale})`
        : ([n, s, q]: readonly string[]) => `${scope.bind(narrowInteger, 'narrowInteger')}(${scope.bind(integerVariance, 'integerVariance')}('${kind}', ${n}, ${s}, ${q}), '${type.kind}')`;
    return {
      slots: 3,
      init: ([n, s, q]) => `${n} = 0; ${s} = 0n; ${q} = 0n;`,
      accumulate: ([n, s, q], [v]) => {
        const big = scope.local('big');
        return `{ const ${big} = ${toBig(v!)}; ${n}++; ${s} += ${big}; ${q} += ${big} * ${big}; }`;
      },
      retract: ([n, s, q], [v]) => {
        const big = scope.local('big');
        return `{ const ${big} = ${toBig(v!)}; ${n}--; ${s} -= ${big}; ${q} -= ${big} * ${big}; }`;
      },
      merge: ([n, s, q], [m, t, r]) => `${n} += ${m}; ${s} += ${t}; ${q} += ${r};`,
      result: (slots) => result(slots),
    };
  };
}
