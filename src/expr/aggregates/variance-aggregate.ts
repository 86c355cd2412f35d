/**
 * VAR_POP, VAR_SAMP, STDDEV_POP and STDDEV_SAMP (VARIANCE and STDDEV are the sample forms), as
 * Flink computes them since FLINK-38740: from the count and M2, the sum of squared distances to the
 * mean, as a double (its WELFORD_M2 aggregate): `M2 / n` (or `M2 / (n − 1)`, NULL for one value),
 * the square root of that for the deviations, cast to the result type, which is the argument's
 * (DECIMAL(p, s) gives DECIMAL(38, max(6, s)); integer results truncate). FLOAT/DOUBLE arguments
 * run Welford's online algorithm exactly as Flink's accumulator does (so equal values give 0, not
 * a rounding error, and a retraction updates the mean and M2 in place); integer and DECIMAL
 * arguments keep exact `[n, Σx, Σx²]`, from which M2 is exact before it becomes a double. Every
 * accumulator retracts in O(1).
 */
import { decimalFromNumber, fitsPrecision } from '../../common/decimal.js';
import { wrapInt64, type Int64 } from '../../common/int64.js';
import { isIntegerType, MAX_DECIMAL_PRECISION, type SqlType } from '../../common/sql-type.js';
import { unsupportedAggregate, type AggregateFactory } from './aggregate-codegen.js';

/** Which statistic. */
export type VarianceKind = 'VAR_POP' | 'VAR_SAMP' | 'STDDEV_POP' | 'STDDEV_SAMP';

const isSample = (kind: VarianceKind): boolean => kind === 'VAR_SAMP' || kind === 'STDDEV_SAMP';
const isRoot = (kind: VarianceKind): boolean => kind === 'STDDEV_POP' || kind === 'STDDEV_SAMP';

/**
 * The statistic as a double from the count and M2; NULL for no values, one value of a sample
 * statistic, or a negative M2 (retractions of values never accumulated).
 */
export function varianceOfM2(kind: VarianceKind, n: number, m2: number): number | null {
  const denominator = isSample(kind) ? n - 1 : n;
  if (n <= 0 || denominator === 0 || m2 < 0) return null;
  const variance = m2 / denominator;
  return isRoot(kind) ? Math.pow(variance, 0.5) : variance;
}

/** M2 of exact sums (Σx and Σx² of unscaled values at `scale`), as a double. */
function exactM2(n: number, sum: bigint, sumSquares: bigint, scale: number): number {
  const count = BigInt(n);
  return Number(count * sumSquares - sum * sum) / Number(count) / 10 ** (2 * scale);
}

/** The statistic of integers (exact sums), truncated as Flink's cast of the double result; a bigint to be narrowed to the result type. */
export function integerVariance(kind: VarianceKind, n: number, sum: bigint, sumSquares: bigint): bigint | null {
  if (n <= 0) return null;
  const value = varianceOfM2(kind, n, exactM2(n, sum, sumSquares, 0));
  return value === null || !Number.isFinite(value) ? null : BigInt(Math.trunc(value));
}

/**
 * The statistic of DECIMALs of scale `scale` (exact sums: Σx at `scale`, Σx² at twice it), as the
 * unscaled value of a DECIMAL(38, resultScale), cast from the double HALF_UP; NULL when it does not fit.
 */
export function decimalVariance(kind: VarianceKind, n: number, sum: bigint, sumSquares: bigint, scale: number, resultScale: number): bigint | null {
  if (n <= 0) return null;
  const value = varianceOfM2(kind, n, exactM2(n, sum, sumSquares, scale));
  const result = value === null ? undefined : decimalFromNumber(value, resultScale);
  return result !== undefined && fitsPrecision(result, MAX_DECIMAL_PRECISION) ? result : null;
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
    if (arg.kind === 'FLOAT' || arg.kind === 'DOUBLE') {
      // Welford's algorithm, as Flink's WelfordM2AggFunction: a count that is not positive (more
      // retractions than values) is kept, but only counted; the statistic reads M2 and the count.
      const compute = scope.bind(varianceOfM2, 'varianceOfM2');
      const round = type.kind === 'FLOAT' ? 'Math.fround' : '';
      const delta = scope.local('delta');
      return {
        slots: 3,
        init: ([n, mean, m2]) => `${n} = 0; ${mean} = 0; ${m2} = 0;`,
        accumulate: ([n, mean, m2], [v]) => `${n}++; if (${n} > 0) { const ${delta} = ${v} - ${mean}; ${mean} += ${delta} / ${n}; ${m2} += ${delta} * (${v} - ${mean}); }`,
        retract: ([n, mean, m2], [v]) =>
          `${n}--; if (${n} <= 0) { if (${n} === 0) { ${mean} = 0; ${m2} = 0; } } else { const ${delta} = ${v} - ${mean}; ${mean} -= ${delta} / ${n}; ${m2} -= (${v} - ${mean}) * ${delta}; }`,
        merge: ([n, mean, m2], [m, otherMean, otherM2]) =>
          `if (${m} <= 0) { ${n} += ${m}; } else if (${n} === 0) { ${n} = ${m}; ${mean} = ${otherMean}; ${m2} = ${otherM2}; } else { ` +
          `const ${delta} = ${otherMean} - ${mean}; const total = ${n} + ${m}; ${m2} = ${m2} + ${otherM2} + (${n} * ${m}) / total * ${delta} * ${delta}; ${mean} = ${mean} + (${m} / total) * ${delta}; ${n} = total; } ` +
          `if (${n} <= 0) { ${mean} = 0; ${m2} = 0; }`,
        result: ([n, , m2]) => `(${n} <= 0 ? null : ${round}(${compute}('${kind}', ${n}, ${m2})))`,
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
