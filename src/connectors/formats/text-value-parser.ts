/**
 * Strict parsers of the text of one scalar value into its representation (sql-type.ts), shared by
 * the CSV decoder (every field is text) and the JSON decoder (strings, map keys, exact numbers).
 * Compiled once per column. Errors are {@link RecordDecodeError}s that name the value and the
 * type, never the column (the record decoder adds it): `'abc' is not a valid DECIMAL(10, 2)`,
 * `'3000000000' is out of range for INT`. Numbers and temporal values may carry surrounding
 * spaces; strings are taken as they are. Binary strings are base64 text, as Flink's JSON and CSV
 * formats (Jackson) write a `byte[]`.
 */
import { isNanoTimestamp, nanosOfMillis, parseTimestampNanos, truncateNanos } from '../../common/epoch-nanos.js';
import { base64ToBytes } from '../../common/bytes.js';
import { parseInt64 } from '../../common/int64.js';
import { parseDate, parseTime, parseTimestamp, parseTimestampFraction, truncateMillis } from '../../common/datetime.js';
import { fitsPrecision, parseDecimal, rescaleDecimal } from '../../common/decimal.js';
import { formatType, withNullable, type SqlType } from '../../common/sql-type.js';
import { RecordDecodeError } from './record-decoder.js';

/**
 * Parses the text of a non-NULL value. `shown` is how the value appears in error messages
 * (quoted text for strings, the digits of a JSON number); it defaults to the quoted text.
 */
export type TextValueParser = (text: string, shown?: string) => unknown;

/** How long a value may be before messages shorten it. */
const SHOWN_LENGTH = 60;

/** The value as error messages show it: quoted, shortened when long. */
export function quoteValue(text: string): string {
  return `'${text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}…` : text}'`;
}

/** The type as error messages name it, without NOT NULL. */
export function typeName(type: SqlType): string {
  return formatType(withNullable(type, true));
}

/** `<value> is not a valid <type>`. */
export function notValid(shown: string, type: SqlType): RecordDecodeError {
  return new RecordDecodeError(`${shown} is not a valid ${typeName(type)}`);
}

/** `<value> is out of range for <type>`. */
export function outOfRange(shown: string, type: SqlType): RecordDecodeError {
  return new RecordDecodeError(`${shown} is out of range for ${typeName(type)}`);
}

/** The integer range of each integer type (BIGINT: only its safe part; larger BIGINT text is parsed exactly, see common/int64.ts). */
export const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  INTERVAL_DAY_TIME: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  INTERVAL_YEAR_MONTH: [-2147483648, 2147483647],
};

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const APPROXIMATE_TEXT = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const SPECIAL_DOUBLES: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, '+Infinity': Infinity, '-Infinity': -Infinity };
/** A decimal without exponent or spaces, which needs no rounding when its fraction fits the scale. */
const PLAIN_DECIMAL = /^([+-]?\d+)(?:\.(\d*))?$/;
const ZEROS = '0'.repeat(40);
const ZONE_SUFFIX = /(?:Z|([+-])(\d{2}):?(\d{2}))$/;

/**
 * The parser of `type`'s text, for scalar types (and INTERVALs, as their number of milliseconds
 * or months, which is how the sink writes them). Throws a RecordDecodeError for ROW, ARRAY and
 * MAP, whose text is the format's business.
 */
export function textValueParser(type: SqlType): TextValueParser {
  switch (type.kind) {
    case 'BOOLEAN':
      return (text, shown) => {
        const lower = text.trim().toLowerCase();
        if (lower === 'true') return true;
        if (lower === 'false') return false;
        throw notValid(shown ?? quoteValue(text), type);
      };
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH': {
      const [min, max] = INTEGER_RANGES[type.kind]!;
      return (text, shown) => {
        if (!INTEGER_TEXT.test(text)) throw notValid(shown ?? quoteValue(text), type);
        const value = Number(text);
        if (value >= min && value <= max && Number.isSafeInteger(value)) return value + 0;
        if (type.kind === 'BIGINT') {
          const exact = parseInt64(text);
          if (exact !== undefined) return exact;
        }
        throw outOfRange(shown ?? quoteValue(text), type);
      };
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const float = type.kind === 'FLOAT';
      return (text, shown) => {
        const special = SPECIAL_DOUBLES[text.trim()];
        if (special !== undefined) return special;
        if (!APPROXIMATE_TEXT.test(text)) throw notValid(shown ?? quoteValue(text), type);
        const value = float ? Math.fround(Number(text)) : Number(text);
        if (!Number.isFinite(value)) throw outOfRange(shown ?? quoteValue(text), type);
        return value;
      };
    }
    case 'DECIMAL': {
      const { precision, scale } = type;
      return (text, shown) => {
        const plain = PLAIN_DECIMAL.exec(text);
        const fraction = plain?.[2] ?? '';
        let unscaled: bigint;
        if (plain !== null && fraction.length <= scale) {
          unscaled = BigInt(plain[1]! + fraction + ZEROS.slice(0, scale - fraction.length));
        } else {
          const parsed = parseDecimal(text.trim());
          if (parsed === undefined) throw notValid(shown ?? quoteValue(text), type);
          unscaled = rescaleDecimal(parsed.unscaled, parsed.scale, scale);
        }
        if (!fitsPrecision(unscaled, precision)) throw outOfRange(shown ?? quoteValue(text), type);
        return unscaled;
      };
    }
    case 'CHAR': {
      const length = type.length;
      return (text, shown) => {
        if (text.length > length) throw new RecordDecodeError(`${shown ?? quoteValue(text)} is longer than ${typeName(type)}`);
        return text.length === length ? text : text.padEnd(length, ' ');
      };
    }
    case 'VARCHAR': {
      const length = type.length;
      return (text, shown) => {
        if (text.length > length) throw new RecordDecodeError(`${shown ?? quoteValue(text)} is longer than ${typeName(type)}`);
        return text;
      };
    }
    case 'BINARY':
    case 'VARBINARY': {
      const { kind, length } = type;
      return (text, shown) => {
        const bytes = base64ToBytes(text.trim());
        if (bytes === undefined) throw new RecordDecodeError(`${shown ?? quoteValue(text)} is not base64 text of a ${typeName(type)}`);
        if (bytes.length > length) throw new RecordDecodeError(`${shown ?? quoteValue(text)} holds ${bytes.length} bytes, more than ${typeName(type)}`);
        if (kind === 'VARBINARY' || bytes.length === length) return bytes;
        const padded = new Uint8Array(length);
        padded.set(bytes);
        return padded;
      };
    }
    case 'DATE':
      return (text, shown) => {
        const days = parseDate(text);
        if (days === undefined) throw notValid(shown ?? quoteValue(text), type);
        return days;
      };
    case 'TIME': {
      const precision = type.precision;
      return (text, shown) => {
        const millis = parseTime(text);
        if (millis === undefined) throw notValid(shown ?? quoteValue(text), type);
        return truncateMillis(millis, precision);
      };
    }
    case 'TIMESTAMP': {
      const precision = type.precision;
      // A TIMESTAMP(p > 3) keeps the fraction digits past the milliseconds, up to its precision.
      if (isNanoTimestamp(type)) {
        return (text, shown) => {
          const nanos = parseTimestampNanos(text);
          if (nanos === undefined) throw notValid(shown ?? quoteValue(text), type);
          return truncateNanos(nanos, precision);
        };
      }
      return (text, shown) => {
        const millis = parseTimestamp(text);
        if (millis === undefined) throw notValid(shown ?? quoteValue(text), type);
        return truncateMillis(millis, precision);
      };
    }
    case 'TIMESTAMP_LTZ': {
      const precision = type.precision;
      const nanos = isNanoTimestamp(type);
      return (text, shown) => {
        const trimmed = text.trim();
        const zone = ZONE_SUFFIX.exec(trimmed);
        const local = parseTimestamp(zone === null ? trimmed : trimmed.slice(0, zone.index));
        const offset = zone?.[1] === undefined ? 0 : (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) * 60_000;
        if (local === undefined) throw notValid(shown ?? quoteValue(text), type);
        if (!nanos) return truncateMillis(local - offset, precision);
        const fraction = parseTimestampFraction(zone === null ? trimmed : trimmed.slice(0, zone.index))!;
        return truncateNanos(nanosOfMillis(local - offset, fraction.nanoOfMilli), precision);
      };
    }
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
    case 'NULL':
      return (_text, _shown) => {
        throw new RecordDecodeError(`a ${typeName(type)} cannot be read from text here`);
      };
  }
}
