import { describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../src/common/row.js';
import { Exprs } from '../../src/expr/scalar-expr.js';
import { call, compiler, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

type Truth = boolean | null;
const VALUES: readonly Truth[] = [true, false, null];
const truth = (v: Truth) => (v === null ? NULL(T.boolean()) : lit.bool(v));

const and3 = (a: Truth, b: Truth): Truth => (a === false || b === false ? false : a === null || b === null ? null : true);
const or3 = (a: Truth, b: Truth): Truth => (a === true || b === true ? true : a === null || b === null ? null : false);

describe('three-valued logic', () => {
  for (const a of VALUES) {
    for (const b of VALUES) {
      it(`${a} AND ${b} = ${and3(a, b)}; ${a} OR ${b} = ${or3(a, b)}`, () => {
        expect(evalCall('AND', truth(a), truth(b))).toBe(and3(a, b));
        expect(evalCall('OR', truth(a), truth(b))).toBe(or3(a, b));
        const row = [a, b];
        const x = ref(0, T.boolean());
        const y = ref(1, T.boolean());
        expect(evaluate(call('AND', x, y), row)).toBe(and3(a, b));
        expect(evaluate(call('OR', x, y), row)).toBe(or3(a, b));
      });
    }
    it(`NOT ${a} and the IS tests`, () => {
      expect(evalCall('NOT', truth(a))).toBe(a === null ? null : !a);
      expect(evalCall('IS TRUE', truth(a))).toBe(a === true);
      expect(evalCall('IS NOT TRUE', truth(a))).toBe(a !== true);
      expect(evalCall('IS FALSE', truth(a))).toBe(a === false);
      expect(evalCall('IS NOT FALSE', truth(a))).toBe(a !== false);
      expect(evalCall('IS NULL', truth(a))).toBe(a === null);
      expect(evalCall('IS NOT NULL', truth(a))).toBe(a !== null);
    });
  }

  it('AND/OR of three or more operands', () => {
    const row = [true, null, false];
    const [a, b, c] = [0, 1, 2].map((i) => ref(i, T.boolean()));
    expect(evaluate(Exprs.call('AND', [a!, b!, c!], T.boolean()), row)).toBe(false);
    expect(evaluate(Exprs.call('AND', [a!, b!, a!], T.boolean()), row)).toBe(null);
    expect(evaluate(Exprs.call('OR', [c!, b!, a!], T.boolean()), row)).toBe(true);
    expect(evaluate(Exprs.call('OR', [c!, b!, c!], T.boolean()), row)).toBe(null);
  });

  it('does not evaluate an operand after a decisive one', () => {
    const failing = call('=', call('/', ref(0, T.int(false)), lit.int(0)), lit.int(1));
    expect(evaluate(call('AND', lit.bool(false), failing), [1])).toBe(false);
    expect(evaluate(call('OR', lit.bool(true), failing), [1])).toBe(true);
    expect(evaluate(call('AND', ref(1, T.boolean()), failing), [1, false])).toBe(false);
    expect(() => evaluate(call('AND', ref(1, T.boolean()), failing), [1, null])).toThrow('division by zero in 1 / 0');
  });

  it('is NULL-free code when operands are NOT NULL', () => {
    const source = compiler.scalarSource(call('AND', ref(0, T.boolean(false)), ref(1, T.boolean(false)))).source;
    expect(source).not.toContain('null');
  });

  it('keeps only TRUE rows in a predicate (NULL and FALSE drop)', () => {
    const predicate = compiler.predicate(ref(0, T.boolean()));
    expect([true, false, null].map((v) => predicate([v]))).toEqual([true, false, false]);
    const batch = ChangeBatch.of([[0, [true]], [0, [null]], [0, [false]]]);
    const out = new ChangeBatch();
    compiler.calc(call('IS NOT FALSE', ref(0, T.boolean())), null)(batch, out);
    expect(out.rows).toEqual([[true], [null]]);
  });
});
