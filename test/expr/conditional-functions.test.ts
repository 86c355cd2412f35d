import { describe, expect, it } from 'vitest';
import { formatType, withNullable } from '../../src/common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../src/expr/scalar-expr.js';
import { call, compiler, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

/** An INT expression that throws when evaluated: 1 / c0 with c0 = 0. */
const failing = (): ScalarExpr => call('/', lit.int(1), ref(0, T.int(false)));

describe('CASE', () => {
  const caseOf = (whens: [ScalarExpr, ScalarExpr][], otherwise: ScalarExpr, type = T.int()) =>
    ({ kind: 'case', whens: whens.map(([when, then]) => ({ when, then })), else: otherwise, type }) as const;

  it('picks the first TRUE branch; NULL conditions do not count', () => {
    const x = ref(1, T.int());
    const expr = caseOf(
      [
        [call('>', x, lit.int(10)), lit.int(2)],
        [call('>', x, lit.int(0)), lit.int(1)],
      ],
      lit.int(0),
    );
    expect([20, 5, -1, null].map((v) => evaluate(expr, [1, v]))).toEqual([2, 1, 0, 0]);
  });

  it('does not evaluate a branch that is not taken', () => {
    const expr = caseOf([[call('=', ref(0, T.int(false)), lit.int(0)), lit.int(-1)]], failing());
    expect(evaluate(expr, [0])).toBe(-1);
    expect(evaluate(expr, [2])).toBe(0);
    const guarded = caseOf([[call('<>', ref(0, T.int(false)), lit.int(0)), failing()]], lit.int(-1));
    expect(evaluate(guarded, [0])).toBe(-1);
  });

  it('converts branch values to the CASE type', () => {
    const expr = caseOf([[ref(0, T.boolean()), lit.int(1)]], lit.dec('2.5'), T.decimal(11, 1));
    expect(evaluate(expr, [true])).toBe(10n);
    expect(evaluate(expr, [false])).toBe(25n);
  });

  it('folds constant conditions', () => {
    const expr = caseOf([[lit.bool(false), failing()], [lit.bool(true), lit.int(7)]], failing());
    expect(evaluate(expr, [0])).toBe(7);
    expect(compiler.scalarSource(expr).source).not.toContain('if');
  });
});

describe('COALESCE, IFNULL, NULLIF, IF', () => {
  it('COALESCE returns the first non-NULL argument and evaluates no further', () => {
    expect(evalCall('COALESCE', NULL(T.int()), lit.int(2), lit.int(3))).toBe(2);
    expect(evalCall('COALESCE', NULL(T.int()), NULL(T.null()))).toBe(null);
    expect(evaluate(call('COALESCE', ref(1, T.int()), failing()), [0, 5])).toBe(5);
    expect(() => evaluate(call('COALESCE', ref(1, T.int()), failing()), [0, null])).toThrow('division by zero');
    expect(formatType(call('COALESCE', ref(1, T.int()), lit.bigint(0)).type)).toBe('BIGINT NOT NULL');
    expect(formatType(call('COALESCE', ref(1, T.int()), ref(2, T.int())).type)).toBe('INT');
    expect(evalCall('IFNULL', NULL(T.string()), lit.str('x'))).toBe('x');
  });

  it('stops generating after a NOT NULL argument', () => {
    const source = compiler.scalarSource(call('COALESCE', ref(1, T.int()), lit.int(0), ref(2, T.int()))).source;
    expect(source).not.toContain('c2');
  });

  it('NULLIF gives NULL for equal values', () => {
    expect(evalCall('NULLIF', lit.int(1), lit.int(1))).toBe(null);
    expect(evalCall('NULLIF', lit.int(1), lit.int(2))).toBe(1);
    expect(evalCall('NULLIF', lit.int(1), NULL(T.int()))).toBe(1);
    expect(evalCall('NULLIF', NULL(T.int()), lit.int(1))).toBe(null);
  });

  it('IF evaluates only the chosen branch; a NULL condition picks the else branch', () => {
    const expr = call('IF', call('>', ref(1, T.int()), lit.int(0)), lit.str('pos'), lit.str('other'));
    expect([1, -1, null].map((v) => evaluate(expr, [0, v]))).toEqual(['pos', 'other', 'other']);
    expect(evaluate(call('IF', ref(1, T.boolean()), lit.int(1), failing()), [0, true])).toBe(1);
  });

  it('GREATEST and LEAST are NULL when any argument is', () => {
    expect(evalCall('GREATEST', lit.int(1), lit.dec('2.5'), lit.int(2))).toBe(25n);
    expect(evalCall('LEAST', lit.str('b'), lit.str('a'))).toBe('a');
    expect(evalCall('GREATEST', lit.int(1), NULL(T.int()))).toBe(null);
  });
});

describe('ROW, ARRAY, MAP and access', () => {
  it('builds structured values and reads them', () => {
    const array = call('ARRAY', lit.int(1), NULL(T.int()), lit.int(3));
    expect(evaluate(array)).toEqual([1, null, 3]);
    expect(evaluate(call('ITEM', array, lit.int(3)))).toBe(3);
    expect(evaluate(call('ITEM', array, lit.int(4)))).toBe(null);
    expect(evaluate(call('CARDINALITY', array))).toBe(3);
    const map = call('MAP', lit.str('a'), lit.int(1), lit.str('b'), lit.int(2));
    expect(evaluate(call('ITEM', map, lit.str('b')))).toBe(2);
    expect(evaluate(call('ITEM', map, lit.str('z')))).toBe(null);
    const row = call('ROW', lit.int(1), lit.str('x'));
    expect(evaluate(Exprs.field(row, 1, T.string()))).toBe('x');
    expect(evaluate(Exprs.field(ref(0, withNullable(row.type, true)), 0, T.int()), [null])).toBe(null);
  });
});
