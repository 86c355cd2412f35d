/**
 * Creating the decoder of a table's `'format'`: the one entry point sources use, so that a source
 * connector needs two lines to decode records, `readFormatOptions` at DDL time and
 * `createRecordDecoder` when its reader starts.
 */
import { WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { formatType } from '../../common/sql-type.js';
import { csvCanHold, CsvRecordDecoder } from './csv-record-decoder.js';
import type { FormatOptions } from './format-options.js';
import { JsonRecordDecoder } from './json-record-decoder.js';
import type { RecordDecoder } from './record-decoder.js';

/** The formats sources can decode. */
export const DECODABLE_FORMATS = ['json', 'csv'] as const;

/** One of {@link DECODABLE_FORMATS}. */
export type DecodableFormat = (typeof DECODABLE_FORMATS)[number];

/**
 * Throws INVALID_OPTION unless `format` is decodable into rows of `schema` (CSV holds no MAP and
 * no nested ARRAY or ROW); `connector` names the connector in messages.
 */
export function checkDecodable(connector: string, format: string, schema: Schema): asserts format is DecodableFormat {
  if (!(DECODABLE_FORMATS as readonly string[]).includes(format)) {
    const formats = DECODABLE_FORMATS.map((name) => `'${name}'`).join(', ');
    throw new WeirError('INVALID_OPTION', `${connector} cannot read format '${format}'; the formats it reads are ${formats}`);
  }
  if (format !== 'csv') return;
  for (const field of schema) {
    if (!csvCanHold(field.type)) {
      throw new WeirError('INVALID_OPTION', `format 'csv' cannot read column '${field.name}' of type ${formatType(field.type)}`, {
        hint: "CSV holds MAP values and nested ARRAY or ROW values only as text; use 'format' = 'json'",
      });
    }
  }
}

/** The decoder of `options.format` for rows of `schema`, compiled once; the format must pass {@link checkDecodable}. */
export function createRecordDecoder(schema: Schema, options: FormatOptions): RecordDecoder {
  checkDecodable('a source', options.format, schema);
  return options.format === 'json' ? new JsonRecordDecoder(schema, options.json) : new CsvRecordDecoder(schema, options.csv);
}
