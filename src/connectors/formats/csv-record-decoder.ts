/**
 * Flink's `csv` format, decoding side, as the filesystem sink writes it (row-formats.ts): fields
 * by position, separated by `csv.field-delimiter`, quoted by RFC 4180 (a field starting with the
 * quote character runs to the next single quote character; doubled quote characters inside are
 * one; a quote character inside an unquoted field is an ordinary character). An unquoted field
 * that is empty or equals `csv.null-literal` is NULL; a quoted one never is, so `""` is the
 * empty string. ARRAY elements and ROW fields are separated by `;` inside the field, an empty
 * element being NULL. The number of fields must equal the number of columns.
 */
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { SqlType } from '../../common/sql-type.js';
import { CSV_ELEMENT_DELIMITER, type CsvSettings } from './format-options.js';
import { RecordDecodeError, type RecordDecoder } from './record-decoder.js';
import { textValueParser, typeName } from './text-value-parser.js';

/** Converts the text of one non-NULL field. */
type FieldConverter = (text: string) => unknown;

/** Decodes CSV records into rows of one schema; the converters are compiled in the constructor. */
export class CsvRecordDecoder implements RecordDecoder {
  readonly #names: readonly string[];
  readonly #converters: readonly FieldConverter[];
  readonly #nullable: readonly boolean[];
  readonly #delimiter: string;
  readonly #quote: string;
  readonly #nullLiteral: string | undefined;
  readonly #fields: string[] = [];
  readonly #quoted: boolean[] = [];

  constructor(schema: Schema, settings: CsvSettings) {
    this.#names = schema.map((field) => field.name);
    this.#converters = schema.map((field) => csvConverter(field.type));
    this.#nullable = schema.map((field) => field.type.nullable);
    this.#delimiter = settings.fieldDelimiter;
    this.#quote = settings.quoteCharacter;
    this.#nullLiteral = settings.nullLiteral;
  }

  decode(text: string): Row {
    const quotes = text.includes(this.#quote);
    const fields = quotes ? this.#splitQuoted(text) : text.split(this.#delimiter);
    const count = this.#names.length;
    if (fields.length !== count) throw new RecordDecodeError(`found ${fields.length} field${fields.length === 1 ? '' : 's'}, expected ${count}`);
    const nullLiteral = this.#nullLiteral;
    const row = new Array<unknown>(count);
    let i = 0;
    try {
      for (; i < count; i++) {
        const field = fields[i]!;
        if ((field === '' || field === nullLiteral) && !(quotes && this.#quoted[i])) {
          if (!this.#nullable[i]) throw new RecordDecodeError('NULL, but the column is NOT NULL');
          row[i] = null;
        } else {
          row[i] = this.#converters[i]!(field);
        }
      }
    } catch (error) {
      if (!(error instanceof RecordDecodeError)) throw error;
      throw new RecordDecodeError(`column '${this.#names[i]!}': ${error.message}`, this.#names[i]);
    }
    return row;
  }

  /** The fields of a record holding the quote character, unquoted; sets {@link #quoted}. */
  #splitQuoted(text: string): string[] {
    const fields = this.#fields;
    const quoted = this.#quoted;
    fields.length = 0;
    quoted.length = 0;
    const delimiter = this.#delimiter;
    const quote = this.#quote;
    let at = 0;
    for (;;) {
      if (text.startsWith(quote, at)) {
        let value = '';
        let from = at + quote.length;
        for (;;) {
          const close = text.indexOf(quote, from);
          if (close < 0) throw new RecordDecodeError(`field ${fields.length + 1}: the quoted field is not closed`);
          value += text.slice(from, close);
          if (!text.startsWith(quote, close + quote.length)) {
            at = close + quote.length;
            break;
          }
          value += quote;
          from = close + 2 * quote.length;
        }
        fields.push(value);
        quoted.push(true);
        if (at === text.length) return fields;
        if (!text.startsWith(delimiter, at)) throw new RecordDecodeError(`field ${fields.length}: text after the closing quote`);
        at += delimiter.length;
      } else {
        const next = text.indexOf(delimiter, at);
        fields.push(text.slice(at, next < 0 ? text.length : next));
        quoted.push(false);
        if (next < 0) return fields;
        at = next + delimiter.length;
      }
    }
  }
}

/**
 * True when a CSV field can hold a value of `type`: a scalar, or an ARRAY or ROW of scalars (one
 * level of element delimiters); never a MAP.
 */
export function csvCanHold(type: SqlType, topLevel = true): boolean {
  switch (type.kind) {
    case 'MAP':
      return false;
    case 'ARRAY':
      return topLevel && csvCanHold(type.element, false);
    case 'ROW':
      return topLevel && type.fields.every((field) => csvCanHold(field.type, false));
    default:
      return true;
  }
}

/** The converter of a field's text into `type`'s representation. */
function csvConverter(type: SqlType): FieldConverter {
  switch (type.kind) {
    case 'ARRAY': {
      const element = nestedConverter(type.element);
      return (text) => (text === '' ? [] : text.split(CSV_ELEMENT_DELIMITER).map(element));
    }
    case 'ROW': {
      const fields = type.fields.map((field) => nestedConverter(field.type));
      return (text) => {
        const parts = text.split(CSV_ELEMENT_DELIMITER);
        if (parts.length !== fields.length) {
          throw new RecordDecodeError(`found ${parts.length} value${parts.length === 1 ? '' : 's'} for ${typeName(type)}, expected ${fields.length}`);
        }
        return parts.map((part, i) => fields[i]!(part));
      };
    }
    default:
      return textValueParser(type);
  }
}

/** An ARRAY element or ROW field: empty is NULL. */
function nestedConverter(type: SqlType): (text: string) => unknown {
  const parse = textValueParser(type);
  return (text) => {
    if (text !== '') return parse(text);
    if (!type.nullable) throw new RecordDecodeError('an empty element, but the element is NOT NULL');
    return null;
  };
}
