import { describe, expect, it } from 'vitest';
import { formatType } from '../../src/common/sql-type.js';
import { compileDateFormatter, compileDateParser } from '../../src/expr/runtime/date-format.js';
import { call, compiler, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

const ts = ref(0, T.timestamp(3));
const at = Date.UTC(2020, 1, 29, 13, 5, 9, 45);

describe('EXTRACT and its shorthands', () => {
  it.each([
    ['YEAR', 2020],
    ['QUARTER', 1],
    ['MONTH', 2],
    ['DAY', 29],
    ['HOUR', 13],
    ['MINUTE', 5],
    ['SECOND', 9],
    ['MILLISECOND', 45],
    ['DOY', 60],
    ['DOW', 7],
    ['ISODOW', 6],
    ['WEEK', 9],
    ['EPOCH', Math.floor(at / 1000)],
  ])('EXTRACT(%s FROM ts) = %s', (unit, expected) => {
    const expr = call('EXTRACT', lit.str(unit), ts);
    expect(formatType(expr.type)).toBe('BIGINT');
    expect(evaluate(expr, [at])).toBe(expected);
  });

  it('has shorthands for timestamps, dates and times', () => {
    expect(evaluate(call('HOUR', ts), [at])).toBe(13);
    expect(evaluate(call('DAYOFMONTH', ts), [at])).toBe(29);
    expect(evaluate(call('YEAR', ref(0, T.date())), [18321])).toBe(2020);
    expect(evaluate(call('MINUTE', ref(0, T.time())), [(13 * 60 + 5) * 60_000])).toBe(5);
    expect(evaluate(call('HOUR', ts), [-1])).toBe(23);
    expect(evaluate(call('HOUR', ts), [null])).toBe(null);
  });

  it('rejects a unit the value does not have when the query is bound', () => {
    expect(() => call('EXTRACT', lit.str('HOUR'), ref(0, T.date()))).toThrow('EXTRACT(HOUR FROM DATE) is not supported');
    expect(() => call('EXTRACT', lit.str('FORTNIGHT'), ts)).toThrow('EXTRACT(FORTNIGHT FROM TIMESTAMP) is not supported');
  });
});

describe('DATE_FORMAT and friends', () => {
  it('formats with SimpleDateFormat patterns (Nexmark q10/q15)', () => {
    expect(evaluate(call('DATE_FORMAT', ts, lit.str('yyyy-MM-dd')), [at])).toBe('2020-02-29');
    expect(evaluate(call('DATE_FORMAT', ts, lit.str('HH:mm')), [at])).toBe('13:05');
    expect(evaluate(call('DATE_FORMAT', ts, lit.str("yyyy-MM-dd'T'HH:mm:ss.SSS")), [at])).toBe('2020-02-29T13:05:09.045');
    expect(evaluate(call('DATE_FORMAT', ts, ref(1, T.string())), [at, 'yy/M/d h:mm a'])).toBe('20/2/29 1:05 PM');
    expect(evalCall('DATE_FORMAT', lit.str('2020-01-02 03:04:05'), lit.str('dd.MM.yyyy'))).toBe('02.01.2020');
    expect(evalCall('DATE_FORMAT', lit.str('nope'), lit.str('dd.MM.yyyy'))).toBe(null);
  });

  it('hoists a constant pattern into the closure', () => {
    const source = compiler.scalarSource(call('DATE_FORMAT', ts, lit.str('yyyy-MM-dd'))).source;
    expect(source).toContain('const k0_format = $constants[0];');
  });

  it('renders every supported letter', () => {
    const format = compileDateFormatter("G yyyy yy MMMM MMM MM M dd D EEEE EEE u a H k K h mm ss SSS S z Z X ''");
    expect(format(at)).toBe("AD 2020 20 February Feb 02 2 29 60 Saturday Sat 6 PM 13 13 1 1 05 09 045 0 UTC +0000 Z '");
    expect(() => compileDateFormatter('yyyy-qq')).toThrow("invalid date format 'yyyy-qq': unsupported pattern letter 'q'");
  });

  it('formats each value of a run of repeated and changing instants afresh or as before', () => {
    const format = compileDateFormatter('yyyy-MM-dd HH:mm:ss.SSS');
    const instants = [at, at, at + 1, at + 1, at, -1, -1, 0, -0, at];
    expect(instants.map(format)).toEqual(instants.map((ms) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ')));
  });

  it('parses text with a pattern, NULL when it does not match', () => {
    expect(evalCall('TO_TIMESTAMP', lit.str('2020-02-29 13:05:09'))).toBe(Date.UTC(2020, 1, 29, 13, 5, 9));
    expect(evalCall('TO_TIMESTAMP', lit.str('29/02/2020 13:05'), lit.str('dd/MM/yyyy HH:mm'))).toBe(Date.UTC(2020, 1, 29, 13, 5));
    expect(evalCall('TO_TIMESTAMP', lit.str('20200229'), lit.str('yyyyMMdd'))).toBe(Date.UTC(2020, 1, 29));
    expect(evalCall('TO_TIMESTAMP', lit.str('30/02/2020 13:05'), lit.str('dd/MM/yyyy HH:mm'))).toBe(null);
    expect(evalCall('TO_TIMESTAMP', lit.str('garbage'))).toBe(null);
    expect(formatType(call('TO_TIMESTAMP', lit.str('x')).type)).toBe('TIMESTAMP(3)');
    expect(evalCall('TO_DATE', lit.str('2020-02-29'))).toBe(18321);
    expect(evalCall('UNIX_TIMESTAMP', lit.str('1970-01-01 00:01:00'))).toBe(60);
    expect(compileDateParser('hh:mm a')('01:30 PM')).toBe(13.5 * 3_600_000);
    expect(compileDateParser('yyyy-MM-dd HH:mm:ss Z')('2020-01-01 10:00:00 +0200')).toBe(Date.UTC(2020, 0, 1, 8));
  });

  it('converts epoch numbers', () => {
    expect(evalCall('FROM_UNIXTIME', lit.bigint(86_400))).toBe('1970-01-02 00:00:00');
    expect(evalCall('FROM_UNIXTIME', lit.int(0), lit.str('yyyy'))).toBe('1970');
    expect(evalCall('TO_TIMESTAMP_LTZ', lit.bigint(1_500), lit.int(3))).toBe(1_500);
    expect(evalCall('TO_TIMESTAMP_LTZ', lit.bigint(2), lit.int(0))).toBe(2_000);
    expect(formatType(call('TO_TIMESTAMP_LTZ', lit.bigint(2), lit.int(0)).type)).toBe('TIMESTAMP_LTZ(3)');
  });

  it('adds and diffs by unit', () => {
    const a = Date.UTC(2020, 0, 31, 12);
    const b = Date.UTC(2020, 2, 30, 11);
    expect(evaluate(call('TIMESTAMPDIFF', lit.str('DAY'), ref(0, T.timestamp(3)), ref(1, T.timestamp(3))), [a, b])).toBe(58);
    expect(evaluate(call('TIMESTAMPDIFF', lit.str('MONTH'), ref(0, T.timestamp(3)), ref(1, T.timestamp(3))), [a, b])).toBe(1);
    expect(evaluate(call('TIMESTAMPADD', lit.str('MONTH'), lit.int(1), ref(0, T.timestamp(3))), [a])).toBe(Date.UTC(2020, 1, 29, 12));
  });
});

describe('current time', () => {
  it('reads the clock per evaluation and is never reused', () => {
    const now = call('CURRENT_TIMESTAMP');
    expect(formatType(now.type)).toBe('TIMESTAMP_LTZ(3) NOT NULL');
    const before = Date.now();
    const value = evaluate(now) as number;
    expect(value).toBeGreaterThanOrEqual(before);
    expect(call('NOW').name).toBe('CURRENT_TIMESTAMP');
    const source = compiler.projectionSource([now, now]).source;
    expect(source.match(/Date\.now\(\)/g)).toHaveLength(2);
    expect(formatType(call('LOCALTIMESTAMP').type)).toBe('TIMESTAMP(3) NOT NULL');
    expect(call('PROCTIME').type).toMatchObject({ kind: 'TIMESTAMP_LTZ', timeAttribute: 'proctime' });
    expect(evalCall('HOUR', NULL(T.timestamp(3)))).toBe(null);
  });
});
