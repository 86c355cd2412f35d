/**
 * PRINTF: java.util.Formatter (Locale.US) over SQL values, as Flink's PrintfFunction calls it.
 * Supported: `%[index$][flags][width][.precision]conversion` with the conversions b, B, s, S, c,
 * C, d, o, x, X, e, E, f, g, G, % and n, and the flags `-`, `+`, space, `0`, `,`, `(` and `#`.
 * Arguments are seen as Java sees them (INT as Integer, DOUBLE as Double, DECIMAL as BigDecimal,
 * strings, booleans; other types as their SQL text); a NULL argument prints as `null`. A format
 * Java would reject (an unknown conversion, a missing argument, a number conversion of a string)
 * makes the result NULL, as in Flink.
 */
import { formatDecimal } from '../../common/decimal.js';
import { formatDouble, formatFloat } from '../../common/value-format.js';

/** How an argument appears to Java. */
export type PrintfArg =
  | { readonly kind: 'integer'; readonly bits: 8 | 16 | 32 | 64 }
  | { readonly kind: 'float' | 'double' | 'boolean' | 'string' }
  | { readonly kind: 'decimal'; readonly scale: number }
  | { readonly kind: 'other'; readonly text: (value: unknown) => string };

const SPECIFIER = /%(?:(\d+)\$|(<))?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;

class FormatError extends Error {}

/** The formatted text, or NULL when Java would throw. */
export function printf(format: string, args: readonly PrintfArg[], ...values: unknown[]): string | null {
  try {
    return formatAll(format, args, values);
  } catch (error) {
    if (error instanceof FormatError) return null;
    throw error;
  }
}

function formatAll(format: string, args: readonly PrintfArg[], values: readonly unknown[]): string {
  let result = '';
  let last = 0;
  let ordinary = 0;
  let previous = -1;
  SPECIFIER.lastIndex = 0;
  for (let m = SPECIFIER.exec(format); m !== null; m = SPECIFIER.exec(format)) {
    const text = format.slice(last, m.index);
    if (text.includes('%')) throw new FormatError('unknown format');
    result += text;
    last = m.index + m[0].length;
    const [, explicit, relative, flags = '', width, precision, conversion] = m;
    if (conversion === '%' || conversion === 'n') {
      result += pad(conversion === '%' ? '%' : '\n', flags, width);
      continue;
    }
    const index = explicit !== undefined ? Number(explicit) - 1 : relative !== undefined ? previous : ordinary++;
    if (index < 0 || index >= values.length) throw new FormatError('missing argument');
    previous = index;
    result += pad(convert(conversion!, flags, precision === undefined ? undefined : Number(precision), args[index]!, values[index]), flags, width);
  }
  const rest = format.slice(last);
  if (rest.includes('%')) throw new FormatError('unknown format');
  return result + rest;
}

function pad(text: string, flags: string, width: string | undefined): string {
  if (width === undefined) return text;
  const n = Number(width);
  if (flags.includes('-')) return text.padEnd(n);
  if (flags.includes('0') && /^[-+ (]?\d/.test(text)) {
    const sign = /^[-+ (]/.test(text) ? text[0]! : '';
    return sign + text.slice(sign.length).padStart(n - sign.length, '0');
  }
  return text.padStart(n);
}

function javaString(arg: PrintfArg, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (arg.kind) {
    case 'integer':
    case 'string':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'float':
      return formatFloat(value as number);
    case 'double':
      return formatDouble(value as number);
    case 'decimal':
      return formatDecimal(value as bigint, arg.scale);
    case 'other':
      return arg.text(value);
  }
}

function convert(conversion: string, flags: string, precision: number | undefined, arg: PrintfArg, value: unknown): string {
  const upper = conversion === conversion.toUpperCase() && conversion !== conversion.toLowerCase();
  const apply = (text: string): string => (upper ? text.toUpperCase() : text);
  switch (conversion.toLowerCase()) {
    case 'b': {
      const text = value === null || value === undefined ? 'false' : arg.kind === 'boolean' ? String(value) : 'true';
      return apply(precision === undefined ? text : text.slice(0, precision));
    }
    case 's': {
      const text = javaString(arg, value);
      return apply(precision === undefined ? text : text.slice(0, precision));
    }
    case 'c':
      if (value === null || value === undefined) return 'null';
      if (arg.kind === 'integer') return apply(String.fromCodePoint(value as number));
      throw new FormatError('illegal conversion');
    case 'd':
    case 'o':
    case 'x':
      if (precision !== undefined) throw new FormatError('illegal precision');
      if (value === null || value === undefined) return 'null';
      if (arg.kind !== 'integer') throw new FormatError('illegal conversion');
      return apply(integer(conversion.toLowerCase(), flags, value as number, arg.bits));
    case 'e':
    case 'f':
    case 'g':
      if (value === null || value === undefined) return 'null';
      return apply(floating(conversion.toLowerCase(), flags, precision ?? 6, arg, value));
    default:
      throw new FormatError(`unknown conversion ${conversion}`);
  }
}

function signed(flags: string, negative: boolean, digits: string): string {
  if (negative) return flags.includes('(') ? `(${digits})` : `-${digits}`;
  if (flags.includes('+')) return `+${digits}`;
  if (flags.includes(' ')) return ` ${digits}`;
  return digits;
}

function grouped(digits: string): string {
  const point = digits.indexOf('.');
  const whole = point < 0 ? digits : digits.slice(0, point);
  return whole.replace(/\B(?=(\d{3})+$)/g, ',') + (point < 0 ? '' : digits.slice(point));
}

function integer(conversion: string, flags: string, value: number, bits: number): string {
  if (conversion === 'd') {
    const digits = String(Math.abs(value));
    return signed(flags, value < 0, flags.includes(',') ? grouped(digits) : digits);
  }
  const unsigned = value >= 0 ? BigInt(value) : BigInt.asUintN(bits, BigInt(value));
  const text = unsigned.toString(conversion === 'o' ? 8 : 16);
  return flags.includes('#') ? (conversion === 'o' ? `0${text}` : `0x${text}`) : text;
}

/** The sign and the decimal text (plain or E-notation, as Java prints it) of a number's magnitude. */
function decimalDigits(arg: PrintfArg, value: unknown): { negative: boolean; text: string } {
  if (arg.kind === 'decimal') {
    const v = value as bigint;
    return { negative: v < 0n, text: formatDecimal(v < 0n ? -v : v, arg.scale) };
  }
  if (arg.kind === 'integer') return { negative: (value as number) < 0, text: String(Math.abs(value as number)) };
  if (arg.kind !== 'float' && arg.kind !== 'double') throw new FormatError('illegal conversion');
  const n = value as number;
  const text = arg.kind === 'float' ? formatFloat(Math.abs(n)) : formatDouble(Math.abs(n));
  return { negative: n < 0 || Object.is(n, -0), text };
}

/** `text` (a plain or E-notation non-negative decimal) rounded HALF_UP to `scale` fraction digits, plain. */
function roundPlain(text: string, scale: number): string {
  const [mantissa, exponentText] = text.split(/[eE]/) as [string, string | undefined];
  const point = mantissa.indexOf('.');
  let digits = mantissa.replace('.', '');
  let exponent = (point < 0 ? mantissa.length : point) + Number(exponentText ?? 0);
  const keep = exponent + scale;
  if (keep < 0) return scale === 0 ? '0' : `0.${'0'.repeat(scale)}`;
  if (digits.length > keep) {
    const up = Number(digits[keep]) >= 5;
    let kept = BigInt(digits.slice(0, keep) || '0');
    if (up) kept += 1n;
    const keptText = kept.toString().padStart(keep, '0');
    if (keptText.length > keep) exponent++;
    digits = keptText;
  } else digits = digits.padEnd(keep, '0');
  const whole = digits.slice(0, digits.length - scale) || '0';
  return scale === 0 ? whole.replace(/^0+(?=\d)/, '') : `${whole.replace(/^0+(?=\d)/, '')}.${digits.slice(digits.length - scale)}`;
}

function scientific(text: string, precision: number): string {
  const n = Number(text);
  if (n === 0) return `${precision === 0 ? '0' : `0.${'0'.repeat(precision)}`}e+00`;
  let exponent = Math.floor(Math.log10(n));
  let mantissa = roundPlain(`${text}e${-exponent}`, precision);
  if (Number(mantissa) >= 10) {
    exponent++;
    mantissa = roundPlain(`${text}e${-exponent}`, precision);
  }
  const sign = exponent < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

function floating(conversion: string, flags: string, precision: number, arg: PrintfArg, value: unknown): string {
  if ((arg.kind === 'float' || arg.kind === 'double') && !Number.isFinite(value as number)) {
    const n = value as number;
    return Number.isNaN(n) ? 'NaN' : signed(flags, n < 0, 'Infinity');
  }
  const { negative, text } = decimalDigits(arg, value);
  let body: string;
  if (conversion === 'f') body = roundPlain(text, precision);
  else if (conversion === 'e') body = scientific(text, precision);
  else {
    const p = precision === 0 ? 1 : precision;
    const rounded = Number(scientific(text, p - 1));
    body = rounded !== 0 && (rounded < 1e-4 || rounded >= 10 ** p) ? scientific(text, p - 1) : roundPlain(text, Math.max(0, p - 1 - (rounded === 0 ? 0 : Math.floor(Math.log10(rounded)))));
  }
  if (flags.includes(',')) body = grouped(body);
  return signed(flags, negative, body);
}
