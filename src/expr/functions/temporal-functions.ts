/**
 * Date and time functions: EXTRACT and its shorthands (YEAR, HOUR, ...), DATE_FORMAT with Java
 * SimpleDateFormat patterns, TO_TIMESTAMP/TO_DATE/TO_TIMESTAMP_LTZ, FROM_UNIXTIME,
 * UNIX_TIMESTAMP, TIMESTAMPADD/TIMESTAMPDIFF and the current-time functions (non-deterministic).
 * TIMESTAMP and DATE values are wall-clock times without a zone; a TIMESTAMP_LTZ instant is read
 * as its wall-clock time in the session zone (`ctx.timeZone`), as are the current date and time
 * (LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME), FROM_UNIXTIME and UNIX_TIMESTAMP(text), as in
 * Flink. Units and constant patterns are resolved once, into the closure.
 */
import { MILLIS_PER_DAY } from '../../common/datetime.js';
import { isNanoTimestamp } from '../../common/epoch-nanos.js';
import { isUtcZone } from '../../common/time-zone.js';
import { WeirError } from '../../common/errors.js';
import { formatType, SqlTypes, timeAttributeOf, type SqlType } from '../../common/sql-type.js';
import type { ArgCode, CodegenContext, LiteralArg, ScalarFunctionDefinition } from '../function-definition.js';
import { compileDateFormatter, compileDateParser, compileJavaTimeParser, patternFractionDigits } from '../runtime/date-format.js';
import { nanoDiffFunction, nanoExtractor } from '../runtime/nanos-lib.js';
import { dateExtractor, intervalExtractor, timeExtractor, timestampAddFunction, timestampDiffFunction, timestampExtractor, DATE_UNITS, TIME_UNITS } from '../runtime/temporal-lib.js';
import { Arg, booleanType, constantArg, defineScalar, type Literals, type Signature } from './define.js';

const BIGINT = SqlTypes.bigint(false);
const DAY_OR_MORE = new Set(['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR']);
const STRING = SqlTypes.string(false);

/** The EXTRACT function of `unit` for values of `type`. */
function extractorOf(unit: string, type: SqlType): (value: number) => number {
  switch (type.kind) {
    case 'DATE':
      return dateExtractor(unit);
    case 'TIME':
      return timeExtractor(unit);
    case 'INTERVAL_DAY_TIME':
      return intervalExtractor(unit, false);
    case 'INTERVAL_YEAR_MONTH':
      return intervalExtractor(unit, true);
    default:
      return timestampExtractor(unit);
  }
}

/** A JS expression for the wall-clock time (epoch milliseconds of the local date and time) in the session zone of the instant `code` (UTC: the instant itself). */
export function localTimeCode(ctx: CodegenContext, code: string): string {
  return isUtcZone(ctx.timeZone) ? code : `${ctx.lib('localOf')}(${code}, ${JSON.stringify(ctx.timeZone)})`;
}


/** The value of a timestamp argument as wall-clock time (epoch milliseconds, or epoch nanos for p > 3): a TIMESTAMP_LTZ through the session zone. */
const wallOf = (ctx: CodegenContext, value: ArgCode): string => {
  if (value.type.kind !== 'TIMESTAMP_LTZ') return value.code;
  if (!isNanoTimestamp(value.type)) return localTimeCode(ctx, value.code);
  return isUtcZone(ctx.timeZone) ? value.code : `${ctx.lib('localOfNanos')}(${value.code}, ${JSON.stringify(ctx.timeZone)})`;
};

/** The extractor of `unit` for values of `type`, as a closure constant (for epoch nanos, one that sees the nanoseconds). */
function extractorCode(ctx: CodegenContext, unit: string, value: ArgCode): string {
  const millis = extractorOf(unit, value.type);
  const extractor = isNanoTimestamp(value.type) ? nanoExtractor(unit, millis) : millis;
  return `${ctx.constant(extractor, unit.toLowerCase())}(${wallOf(ctx, value)})`;
}

/** Validates a literal unit against the value type at resolution, so a bad unit fails when the query is bound. */
function checkedUnit(types: readonly SqlType[], literals: Literals): SqlType {
  const unit = literals[0]?.value;
  if (typeof unit === 'string') extractorOf(unit, types[1]!);
  return BIGINT;
}

const extractSignature = (family: (typeof Arg)[keyof typeof Arg]): Signature => ({
  args: [Arg.STRING, family],
  exactNanos: true,
  returns: checkedUnit,
  generate: (ctx, [unit, value]) => extractorCode(ctx, String(constantArg('EXTRACT', unit, 'unit')), value!),
});

/** A shorthand such as HOUR(ts) for EXTRACT(HOUR FROM ts), of a timestamp, a date or time, and for some units an interval. */
function extractShorthand(name: string, unit: string): ScalarFunctionDefinition {
  const forDate = (DATE_UNITS as readonly string[]).includes(unit);
  const signature = (family: (typeof Arg)[keyof typeof Arg]): Signature => ({
    args: [family],
    exactNanos: true,
    returns: BIGINT,
    generate: (ctx, [value]) => extractorCode(ctx, unit, value!),
  });
  return defineScalar({
    name,
    description: `${name}(x): EXTRACT(${unit} FROM x), as BIGINT`,
    signatures: [signature(Arg.TIMESTAMP), signature(forDate ? Arg.DATE : Arg.TIME), ...(INTERVAL_SHORTHANDS.has(unit) ? [signature(forDate ? Arg.INTERVAL_YM : Arg.INTERVAL_DT)] : [])],
  });
}

/** The shorthands that also take an interval (of their kind), as EXTRACT does: HOUR(INTERVAL '1 07:00' DAY TO MINUTE) is 7. */
const INTERVAL_SHORTHANDS: ReadonlySet<string> = new Set(['YEAR', 'QUARTER', 'MONTH', 'HOUR', 'MINUTE', 'SECOND']);

const SHORTHANDS: readonly (readonly [string, string])[] = [
  ['YEAR', 'YEAR'],
  ['QUARTER', 'QUARTER'],
  ['MONTH', 'MONTH'],
  ['WEEK', 'WEEK'],
  ['DAYOFYEAR', 'DOY'],
  ['DAYOFMONTH', 'DAY'],
  ['DAYOFWEEK', 'DOW'],
  ['HOUR', 'HOUR'],
  ['MINUTE', 'MINUTE'],
  ['SECOND', 'SECOND'],
];

/** A formatter of epoch milliseconds: a precompiled constant for a literal pattern, else a run-time lookup. */
function formatCode(ctx: CodegenContext, millis: string, pattern: ArgCode | undefined, defaultPattern = 'yyyy-MM-dd HH:mm:ss'): string {
  if (pattern === undefined) return `${ctx.constant(compileDateFormatter(defaultPattern), 'format')}(${millis})`;
  if (pattern.constant !== undefined) return `${ctx.constant(compileDateFormatter(pattern.constant.value as string), 'format')}(${millis})`;
  return `${ctx.lib('dateFormat')}(${millis}, ${pattern.code})`;
}

/** DATE_FORMAT of a timestamp argument: epoch nanos give the formatter their nanoseconds too. */
function formatTimestampCode(ctx: CodegenContext, ts: ArgCode, pattern: ArgCode | undefined): string {
  const wall = wallOf(ctx, ts);
  if (!isNanoTimestamp(ts.type)) return formatCode(ctx, wall, pattern);
  if (pattern?.constant === undefined) return `${ctx.lib('dateFormatNanos')}(${wall}, ${pattern!.code})`;
  return `${ctx.lib('formatNanos')}(${ctx.constant(compileDateFormatter(pattern.constant.value as string), 'format')}, ${wall})`;
}

/**
 * The precision of a parsed timestamp (TO_TIMESTAMP, TO_TIMESTAMP_LTZ of text) as Flink 2.3 infers
 * it: the number of `S` letters of a literal pattern, at least 3 (and 3 without a literal pattern).
 */
function patternPrecision(pattern: LiteralArg | undefined): number {
  return typeof pattern?.value === 'string' ? Math.min(9, Math.max(3, patternFractionDigits(pattern.value))) : 3;
}

/** The result precision of TO_TIMESTAMP_LTZ(epoch, precision): a literal 4..9 as it is, else 3 (Flink 2.3). */
function epochPrecision(precision: LiteralArg | undefined): number {
  const value = precision?.value;
  if (typeof value === 'number' && (!Number.isInteger(value) || value < 0 || value > 9)) {
    throw new WeirError('INVALID_ARGUMENT', `Precision for TO_TIMESTAMP_LTZ must be between 0 and 9 but was ${value}.`);
  }
  return typeof value === 'number' && Number.isInteger(value) && value > 3 && value <= 9 ? value : 3;
}

/** The current instant's wall-clock milliseconds in the session zone. */
const localNow = (ctx: CodegenContext): string => localTimeCode(ctx, 'Date.now()');

/** A parser of text to epoch milliseconds or NULL: precompiled for a literal pattern. */
function parseCode(ctx: CodegenContext, text: string, pattern: ArgCode | undefined, helper: string): string {
  if (pattern?.constant === undefined) return `${ctx.lib(helper)}(${text}${pattern === undefined ? '' : `, ${pattern.code}`})`;
  return `${ctx.constant(compileDateParser(pattern.constant.value as string), 'parse')}(${text}) ?? null`;
}

/** The current time as a value of `type`: an instant for TIMESTAMP_LTZ, else the wall-clock time in the session zone. */
function now(ctx: CodegenContext, type: SqlType): string {
  switch (type.kind) {
    case 'DATE':
      return `${ctx.lib('floorDiv')}(${localNow(ctx)}, ${MILLIS_PER_DAY})`;
    case 'TIME':
      return `${ctx.lib('floorMod')}(Math.floor(${localNow(ctx)} / 1000) * 1000, ${MILLIS_PER_DAY})`;
    case 'TIMESTAMP':
      return localNow(ctx);
    default:
      return 'Date.now()';
  }
}

function currentTime(name: string, type: SqlType, description: string): ScalarFunctionDefinition {
  return defineScalar({ name, description, deterministic: false, signatures: [{ args: [], returns: type, generate: (ctx) => now(ctx, type) }] });
}

const PROCTIME_TYPE: SqlType = { kind: 'TIMESTAMP_LTZ', nullable: false, precision: 3, timeAttribute: 'proctime' };

const proctime: ScalarFunctionDefinition = {
  ...currentTime('PROCTIME', PROCTIME_TYPE, 'PROCTIME(): the processing-time attribute (the wall clock), TIMESTAMP_LTZ(3)'),
  resolve: () => ({ args: [], returns: PROCTIME_TYPE }),
};

const currentWatermarkBase = defineScalar({
  name: 'CURRENT_WATERMARK',
  description:
    "CURRENT_WATERMARK(rowtime): the watermark of the operator computing it, as the rowtime attribute's type at precision 3; NULL before its first watermark (e.g. WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts) drops late rows)",
  deterministic: false,
  signatures: [{ args: [Arg.TIMESTAMP], nullable: true, returns: ([t]) => (t!.kind === 'TIMESTAMP_LTZ' ? SqlTypes.timestampLtz(3) : SqlTypes.timestamp(3)), generate: (ctx) => ctx.currentWatermark() }],
});

/** CURRENT_WATERMARK, whose argument must be a rowtime attribute (a column with a WATERMARK, or one derived from it unchanged). */
const currentWatermark: ScalarFunctionDefinition = {
  ...currentWatermarkBase,
  resolve(argTypes, literals) {
    const [type] = argTypes;
    if (argTypes.length === 1 && type !== undefined && type.kind !== 'NULL' && timeAttributeOf(type) !== 'rowtime') {
      throw new WeirError('TYPE_MISMATCH', `CURRENT_WATERMARK needs a rowtime attribute (a column the table declares a WATERMARK for), got ${formatType(type)}`);
    }
    return currentWatermarkBase.resolve(argTypes, literals);
  },
};

/** The error of TIMESTAMPDIFF between a TIMESTAMP_LTZ and another kind (Flink's code generator refuses it). */
const ltzDiffError = (): WeirError => new WeirError('TYPE_MISMATCH', 'TIMESTAMP_LTZ only supports diff between the same type.');

/**
 * The type of TIMESTAMPDIFF with a TIME operand, which Flink computes only in months (MONTH,
 * QUARTER, YEAR), the TIME standing for that time on 1970-01-01: INT, or the error for another unit.
 */
function timeDiffType(types: readonly SqlType[], literals: Literals): SqlType {
  if (types[1]!.kind === 'TIMESTAMP_LTZ' || types[2]!.kind === 'TIMESTAMP_LTZ') throw ltzDiffError();
  const unit = literals[0]?.value;
  if (typeof unit === 'string' && !['MONTH', 'QUARTER', 'YEAR'].includes(unit.toUpperCase())) {
    throw new WeirError('TYPE_MISMATCH', `TIMESTAMPDIFF(${unit.toUpperCase()}) of a TIME is not supported; only MONTH, QUARTER and YEAR are`);
  }
  return SqlTypes.int(false);
}

const millisOf = (value: ArgCode): string => (value.type.kind === 'DATE' ? `${value.code} * ${MILLIS_PER_DAY}` : value.code);

/** A DATE, TIMESTAMP(p <= 3) or TIMESTAMP(p > 3) argument as epoch nanos. */
const nanosOf = (ctx: CodegenContext, value: ArgCode): string => (isNanoTimestamp(value.type) ? value.code : `${ctx.lib('nanosOfMillisOrNull')}(${millisOf(value)})`);

type RowType = Extract<SqlType, { kind: 'ROW' }>;

const isInstant = (t: SqlType): boolean => t.kind === 'DATE' || t.kind === 'TIME' || t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ';

/** A period `(start, end or interval)` of OVERLAPS: two fields, an instant then an instant of the same kind or an interval. */
function isPeriod(type: SqlType): boolean {
  if (type.kind !== 'ROW' || type.fields.length !== 2) return false;
  const [start, end] = [type.fields[0]!.type, type.fields[1]!.type];
  if (!isInstant(start)) return false;
  // Calcite's period: an end of the start's own type (a DATE and a TIMESTAMP do not make a period), or an interval.
  return end.kind === 'INTERVAL_DAY_TIME' || end.kind === 'INTERVAL_YEAR_MONTH' || end.kind === start.kind;
}

/**
 * JS expressions for a period's start and end as comparable values, in the start's own unit
 * (epoch nanos for TIMESTAMP(p > 3) fields); NULL fields stay NULL.
 */
function periodCodes(ctx: CodegenContext, row: ArgCode): [string, string] {
  const [startType, endType] = (row.type as RowType).fields.map((f) => f.type) as [SqlType, SqlType];
  const start = `${row.code}[0]`;
  const end = `${row.code}[1]`;
  const nanos = isNanoTimestamp(startType);
  let sum: string;
  if (endType.kind === 'INTERVAL_DAY_TIME') {
    sum = nanos
      ? `${ctx.lib('addMillisToNanos')}(${start}, ${end}, 1)`
      : startType.kind === 'TIME'
        ? `${ctx.lib('floorMod')}(${start} + ${end}, ${MILLIS_PER_DAY})`
        : startType.kind === 'DATE'
          ? `${start} + ${ctx.lib('floorDiv')}(${end}, ${MILLIS_PER_DAY})`
          : `${start} + ${end}`;
  } else if (endType.kind === 'INTERVAL_YEAR_MONTH') {
    sum = nanos
      ? `${ctx.lib('addMonthsToNanos')}(${start}, ${end})`
      : startType.kind === 'DATE'
        ? `${ctx.lib('addMonthsToDate')}(${start}, ${end})`
        : startType.kind === 'TIME'
          ? start
          : `${ctx.lib('addMonthsToTimestamp')}(${start}, ${end})`;
  } else return [start, end];
  return [start, `(${start} === null || ${end} === null ? null : ${sum})`];
}

type TimestampType = Extract<SqlType, { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>;

/** The periods with every TIMESTAMP(_LTZ) field at `precision` (the same types when none differs). */
function periodsAt(types: readonly SqlType[], precision: number): SqlType[] {
  return types.map((type) => {
    const row = type as RowType;
    if (!row.fields.some((f) => isTimestampKind(f.type) && (f.type as TimestampType).precision !== precision)) return type;
    return { ...row, fields: row.fields.map((f) => (isTimestampKind(f.type) ? { ...f, type: { ...(f.type as TimestampType), precision } } : f)) };
  });
}

const isTimestampKind = (t: SqlType): boolean => t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ';

/**
 * The periods as OVERLAPS compares them (their instants are of one kind): when a TIMESTAMP(p > 3)
 * field takes part, all timestamp fields at precision 9 (epoch nanos: compared by the nanosecond,
 * as Flink compares the values themselves); otherwise as they are.
 */
function comparablePeriods(types: readonly SqlType[]): SqlType[] {
  const fields = types.flatMap((t) => (t as RowType).fields.map((f) => f.type));
  return fields.some(isNanoTimestamp) ? periodsAt(types, 9) : [...types];
}

/** The name of the planner's TUMBLE bound function (see {@link tumbleBound}); `$` names are not callable from SQL. */
export const TUMBLE_BOUND = '$TUMBLE_BOUND';

/**
 * `$TUMBLE_BOUND(ts, size, offset, shift)`, internal to the planner: the start of the TUMBLE
 * window of `size` (starts shifted by `offset`) holding `ts`, plus `shift`, as TIMESTAMP(3) NOT
 * NULL. A TUMBLE over a plain timestamp is a Calc computing window_start, window_end and
 * window_time with it, after a filter on `ts IS NOT NULL` (so `ts` is never NULL here).
 */
const tumbleBound = defineScalar({
  name: TUMBLE_BOUND,
  description: `${TUMBLE_BOUND}(ts, size, offset, shift): the start of the TUMBLE window holding ts, plus shift (planner-internal)`,
  nulls: 'custom',
  signatures: [
    {
      args: [Arg.TIMESTAMP, Arg.INTERVAL_DT, Arg.INTERVAL_DT, Arg.INTERVAL_DT],
      returns: SqlTypes.timestamp(3, false),
      generate: (ctx, [ts, size, offset, shift]) => {
        const time = wallOf(ctx, ts!);
        return `(Math.floor((${time} - ${offset!.code}) / ${size!.code}) * ${size!.code} + ${offset!.code} + ${shift!.code})`;
      },
    },
  ],
});

/** The date and time functions. */
export const temporalFunctions: readonly ScalarFunctionDefinition[] = [
  tumbleBound,
  defineScalar({
    name: 'EXTRACT',
    description: 'EXTRACT(unit FROM x): a field of a date, time, timestamp or interval (MILLENNIUM, CENTURY, DECADE, YEAR, ISOYEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, ISODOW, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, NANOSECOND, EPOCH)',
    signatures: [extractSignature(Arg.TIMESTAMP), extractSignature(Arg.DATE), extractSignature(Arg.TIME), extractSignature(Arg.INTERVAL_DT), extractSignature(Arg.INTERVAL_YM)],
  }),
  ...SHORTHANDS.map(([name, unit]) => extractShorthand(name, unit)),
  defineScalar({
    name: 'DATE_FORMAT',
    description: "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'): the timestamp (or timestamp text) in a Java SimpleDateFormat pattern",
    signatures: [
      // Typed nullable whatever the arguments, as Flink's operator table types it (VARCHAR_FORCE_NULLABLE).
      { args: [Arg.TIMESTAMP, Arg.STRING], exactNanos: true, nullable: true, returns: STRING, generate: (ctx, [ts, pattern]) => formatTimestampCode(ctx, ts!, pattern) },
      { args: [Arg.DATE, Arg.STRING], nullable: true, returns: STRING, generate: (ctx, [date, pattern]) => formatCode(ctx, millisOf(date!), pattern) },
      {
        args: [Arg.STRING, Arg.STRING],
        nullable: true,
        returns: STRING,
        generate: (ctx, [text, pattern]) => `${ctx.lib('dateFormatText')}(${text!.code}, ${pattern!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'TO_TIMESTAMP',
    description:
      "TO_TIMESTAMP(s[, 'pattern']): the text as TIMESTAMP(3) (default pattern yyyy-MM-dd HH:mm:ss[.SSS]), as TIMESTAMP(p) when a literal pattern has p > 3 fraction letters (SSSSSS: 6); NULL when it does not match",
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        nullable: true,
        exactNanos: true,
        returns: (_types, literals) => SqlTypes.timestamp(patternPrecision(literals[1]), false),
        generate: (ctx, [s, p], call) => {
          const precision = (call.type as { precision: number }).precision;
          if (p === undefined) return parseCode(ctx, s!.code, p, 'toTimestamp');
          if (precision <= 3) {
            if (p.constant === undefined) return `${ctx.lib('toTimestampJavaTime')}(${s!.code}, ${p.code})`;
            return `${ctx.constant(compileJavaTimeParser(p.constant.value as string), 'parse')}(${s!.code})?.millis ?? null`;
          }
          return `${ctx.lib('toTimestampNanos')}(${s!.code}, ${p!.code}, ${precision})`;
        },
      },
    ],
  }),
  defineScalar({
    name: 'TO_DATE',
    description: "TO_DATE(s[, 'pattern']): the text as DATE (default pattern yyyy-MM-dd); NULL when it does not match",
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        nullable: true,
        returns: SqlTypes.date(false),
        generate: (ctx, [s, p]) => `${ctx.lib('toDate')}(${s!.code}${p === undefined ? '' : `, ${p.code}`})`,
      },
    ],
  }),
  defineScalar({
    name: 'TO_TIMESTAMP_LTZ',
    description:
      "TO_TIMESTAMP_LTZ(epoch[, precision]): epoch in units of 10^-precision seconds (default 3, milliseconds) as TIMESTAMP_LTZ(3), as TIMESTAMP_LTZ(p) for a literal precision p of 4..9; TO_TIMESTAMP_LTZ(s[, pattern[, zone]]): the text read in the pattern (default yyyy-MM-dd HH:mm:ss) in the zone (default UTC), TIMESTAMP_LTZ(p) for a literal pattern of p > 3 fraction letters; NULL when it does not match",
    signatures: [
      {
        args: [Arg.NUMERIC, Arg.INTEGER],
        optional: 1,
        exactInt64: true,
        coerce: (types) => [types[0]!.kind === 'DECIMAL' || types[0]!.kind === 'FLOAT' ? SqlTypes.double(types[0]!.nullable) : types[0]!, ...types.slice(1)],
        // Flink 2.3: a literal precision of 4..9 gives TIMESTAMP_LTZ(p) (every digit kept), 0..3 TIMESTAMP_LTZ(3);
        // the type is nullable (an instant outside the years 0000..9999 is NULL).
        nullable: true,
        returns: (_types, literals) => SqlTypes.timestampLtz(epochPrecision(literals[1]), true),
        generate: (ctx, [epoch, precision], call) => {
          const constant = precision === undefined ? 3 : precision.constant?.value;
          if (isNanoTimestamp(call.type)) return `${ctx.lib('epochToNanosOrNull')}(${epoch!.code}, ${constant as number})`;
          return `${ctx.lib('epochToMillisOrNull')}(${epoch!.code}, ${precision?.code ?? '3'})`;
        },
      },
      {
        args: [Arg.STRING, Arg.STRING, Arg.STRING],
        optional: 2,
        nullable: true,
        returns: (_types, literals) => SqlTypes.timestampLtz(patternPrecision(literals[1]), false),
        generate: (ctx, args, call) => {
          const precision = (call.type as { precision: number }).precision;
          if (precision <= 3) return `${ctx.lib('textToTimestampLtz')}(${args.map((a) => a.code).join(', ')})`;
          return `${ctx.lib('textToTimestampLtzNanos')}(${precision}, ${args.map((a) => a.code).join(', ')})`;
        },
      },
    ],
  }),
  defineScalar({
    name: 'FROM_UNIXTIME',
    description: "FROM_UNIXTIME(seconds[, 'pattern']): epoch seconds as text of the wall-clock time in the session zone (default pattern yyyy-MM-dd HH:mm:ss)",
    signatures: [
      {
        args: [Arg.INTEGER, Arg.STRING],
        optional: 1,
        exactInt64: true,
        nullable: true,
        returns: STRING,
        generate: (ctx, [seconds, pattern]) => `${ctx.lib('fromUnixtimeIn')}(${seconds!.code}, ${JSON.stringify(ctx.timeZone)}${pattern === undefined ? '' : `, ${pattern.code}`})`,
      },
    ],
  }),
  defineScalar({
    name: 'UNIX_TIMESTAMP',
    description:
      "UNIX_TIMESTAMP(): the current epoch seconds; UNIX_TIMESTAMP(s[, 'pattern']): the epoch seconds of the text read in the session zone (or the offset it carries), -9223372036854775808 when it does not match",
    deterministic: false,
    signatures: [
      { args: [], returns: BIGINT, generate: () => 'Math.floor(Date.now() / 1000)' },
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        nullable: true,
        returns: BIGINT,
        generate: (ctx, [s, p]) => `${ctx.lib('unixTimestampIn')}(${s!.code}, ${p === undefined ? 'undefined' : p.code}, ${JSON.stringify(ctx.timeZone)})`,
      },
    ],
  }),
  defineScalar({
    name: 'TIMESTAMPADD',
    description: 'TIMESTAMPADD(unit, n, t): t plus n units (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR); a DATE stays a DATE for units of a day or more',
    signatures: [
      {
        args: [Arg.STRING, Arg.INTEGER, Arg.TIMESTAMP],
        exactNanos: true,
        returns: (types) => types[2]!,
        generate: (ctx, [unit, amount, ts]) => {
          const add = timestampAddFunction(String(constantArg('TIMESTAMPADD', unit, 'unit')));
          if (!isNanoTimestamp(ts!.type)) return `${ctx.constant(add, 'add')}(${amount!.code}, ${ts!.code})`;
          return `${ctx.lib('addToNanos')}(${ctx.constant(add, 'add')}, ${amount!.code}, ${ts!.code})`;
        },
      },
      {
        args: [Arg.STRING, Arg.INTEGER, Arg.DATE],
        returns: (_types, literals) => (typeof literals[0]?.value === 'string' && DAY_OR_MORE.has(literals[0].value.toUpperCase()) ? SqlTypes.date(false) : SqlTypes.timestamp(0, false)),
        generate: (ctx, [unit, amount, date], call) => {
          const add = `${ctx.constant(timestampAddFunction(String(constantArg('TIMESTAMPADD', unit, 'unit'))), 'add')}(${amount!.code}, ${date!.code} * ${MILLIS_PER_DAY})`;
          return call.type.kind === 'DATE' ? `${ctx.lib('floorDiv')}(${add}, ${MILLIS_PER_DAY})` : add;
        },
      },
      {
        args: [Arg.STRING, Arg.INTEGER, Arg.TIME],
        returns: (types) => types[2]!,
        generate: (ctx, [unit, amount, time]) =>
          `${ctx.lib('floorMod')}(${ctx.constant(timestampAddFunction(String(constantArg('TIMESTAMPADD', unit, 'unit'))), 'add')}(${amount!.code}, ${time!.code}), ${MILLIS_PER_DAY})`,
      },
    ],
  }),
  defineScalar({
    name: 'TIMESTAMPDIFF',
    description: "TIMESTAMPDIFF('unit', a, b): whole units from a to b, as INT",
    signatures: [
      {
        args: [Arg.STRING, Arg.DATETIME, Arg.DATETIME],
        exactNanos: true,
        returns: (types) => {
          if ((types[1]!.kind === 'TIMESTAMP_LTZ') !== (types[2]!.kind === 'TIMESTAMP_LTZ')) throw ltzDiffError();
          return SqlTypes.int(false);
        },
        generate: (ctx, [unit, a, b]) => {
          const name = String(constantArg('TIMESTAMPDIFF', unit, 'unit'));
          const millisDiff = timestampDiffFunction(name);
          if (!isNanoTimestamp(a!.type) && !isNanoTimestamp(b!.type)) return `${ctx.constant(millisDiff, 'diff')}(${millisOf(a!)}, ${millisOf(b!)})`;
          return `${ctx.constant(nanoDiffFunction(name, millisDiff), 'diff')}(${nanosOf(ctx, a!)}, ${nanosOf(ctx, b!)})`;
        },
      },
      ...([
        [Arg.TIME, Arg.DATETIME],
        [Arg.DATETIME, Arg.TIME],
        [Arg.TIME, Arg.TIME],
      ] as const).map(([first, second]): Signature => ({
        args: [Arg.STRING, first, second],
        returns: timeDiffType,
        generate: (ctx, [unit, a, b]) => `${ctx.constant(timestampDiffFunction(String(constantArg('TIMESTAMPDIFF', unit, 'unit'))), 'diff')}(${millisOf(a!)}, ${millisOf(b!)})`,
      })),
    ],
  }),
  defineScalar({
    name: 'CONVERT_TZ',
    description: "CONVERT_TZ(s, fromZone, toZone): the timestamp text (yyyy-MM-dd HH:mm:ss) read in one time zone and written in the other ('UTC', 'America/Los_Angeles', 'PST', 'GMT-08:00')",
    signatures: [{ args: [Arg.STRING, Arg.STRING, Arg.STRING], nullable: true, returns: STRING, generate: (ctx, args) => `${ctx.lib('convertTz')}(${args.map((a) => a.code).join(', ')})` }],
  }),
  ...(['DATE_ADD', 'DATE_SUB'] as const).map((name) =>
    defineScalar({
      name,
      description: `${name}(d, n): the date d (a DATE, TIMESTAMP or yyyy-MM-dd text) ${name === 'DATE_ADD' ? 'plus' : 'minus'} n days, as yyyy-MM-dd text; ${name}(date, interval): the DATE ${name === 'DATE_ADD' ? 'plus' : 'minus'} the interval, as a DATE`,
      signatures: [
        {
          args: [Arg.DATE, Arg.INTERVAL_DT],
          returns: SqlTypes.date(false),
          generate: (ctx, [d, i]) => `${d!.code} ${name === 'DATE_ADD' ? '+' : '-'} ${ctx.lib('floorDiv')}(${i!.code}, ${MILLIS_PER_DAY})`,
        },
        {
          args: [Arg.DATE, Arg.INTERVAL_YM],
          returns: SqlTypes.date(false),
          generate: (ctx, [d, i]) => `${ctx.lib('addMonthsToDate')}(${d!.code}, ${name === 'DATE_ADD' ? '' : '-'}${i!.code})`,
        },
        {
          args: [Arg.STRING, Arg.INTEGER],
          returns: STRING,
          generate: (ctx, [d, n]) => `${ctx.lib('dateAddText')}(${d!.code}, ${name === 'DATE_ADD' ? n!.code : `-${n!.code}`})`,
        },
        {
          args: [Arg.DATETIME, Arg.INTEGER],
          returns: STRING,
          generate: (ctx, [d, n]) => {
            const days = d!.type.kind === 'DATE' ? d!.code : `${ctx.lib('floorDiv')}(${d!.code}, ${MILLIS_PER_DAY})`;
            return `${ctx.constant(compileDateFormatter('yyyy-MM-dd'), 'format')}((${days} ${name === 'DATE_ADD' ? '+' : '-'} ${n!.code}) * ${MILLIS_PER_DAY})`;
          },
        },
      ],
    }),
  ),
  currentTime('CURRENT_TIMESTAMP', SqlTypes.timestampLtz(3, false), 'CURRENT_TIMESTAMP: the current time as TIMESTAMP_LTZ(3), evaluated per record'),
  currentTime('LOCALTIMESTAMP', SqlTypes.timestamp(3, false), 'LOCALTIMESTAMP: the current wall-clock time in the session zone as TIMESTAMP(3), evaluated per record'),
  currentTime('CURRENT_ROW_TIMESTAMP', SqlTypes.timestampLtz(3, false), 'CURRENT_ROW_TIMESTAMP(): the current time as TIMESTAMP_LTZ(3)'),
  currentTime('CURRENT_DATE', SqlTypes.date(false), 'CURRENT_DATE: the current date in the session zone'),
  currentTime('CURRENT_TIME', SqlTypes.time(0, false), 'CURRENT_TIME: the current time of day in the session zone'),
  proctime,
  currentWatermark,
  defineScalar({
    name: 'OVERLAPS',
    description: '(start1, end1) OVERLAPS (start2, end2): TRUE when the two periods share an instant; an end may be an interval from the start',
    signatures: [
      {
        args: [Arg.ROW, Arg.ROW],
        coerce: (types) => {
          if (!types.every(isPeriod)) return undefined;
          // Both periods start with the same type, as Calcite's SqlOverlapsOperator checks.
          const kinds = types.map((t) => (t as RowType).fields[0]!.type.kind);
          return kinds[0] === kinds[1] ? comparablePeriods(types) : undefined;
        },
        nullable: true,
        returns: booleanType(false),
        generate: (ctx, [a, b]) => {
          return `${ctx.lib('overlaps')}(${[...periodCodes(ctx, a!), ...periodCodes(ctx, b!)].join(', ')})`;
        },
      },
    ],
  }),
];

/** Aliases of temporal functions: alias → canonical name. */
export const TEMPORAL_ALIASES: Readonly<Record<string, string>> = {
  NOW: 'CURRENT_TIMESTAMP',
  LOCALTIME: 'CURRENT_TIME',
};

/** Units EXTRACT accepts, for documentation and the binder. */
export const EXTRACT_UNITS: readonly string[] = [...DATE_UNITS, ...TIME_UNITS];
