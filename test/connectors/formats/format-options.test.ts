import { describe, expect, it } from 'vitest';
import { readFormatOptions } from '../../../src/connectors/formats/format-options.js';

const read = (options: Record<string, string>) => readFormatOptions('filesystem', new Map(Object.entries(options)));

describe('format options', () => {
  it('has Flink’s defaults', () => {
    expect(read({ format: 'csv' })).toEqual({
      format: 'csv',
      csv: { fieldDelimiter: ',', quoteCharacter: '"', allowComments: false, nullLiteral: undefined },
      json: { failOnMissingField: false },
      ignoreParseErrors: false,
    });
  });

  it('reads every option', () => {
    const options = read({
      format: 'csv',
      'csv.field-delimiter': '\\t',
      'csv.quote-character': "'",
      'csv.allow-comments': 'TRUE',
      'csv.null-literal': 'n/a',
      'csv.ignore-parse-errors': 'true',
    });
    expect(options.csv).toEqual({ fieldDelimiter: '\t', quoteCharacter: "'", allowComments: true, nullLiteral: 'n/a' });
    expect(options.ignoreParseErrors).toBe(true);
    expect(read({ format: 'json', 'json.fail-on-missing-field': 'true' }).json.failOnMissingField).toBe(true);
  });

  it('sets bad records aside by any of the four keys that say so', () => {
    expect(read({ format: 'json', 'format.ignore-parse-errors': 'true' }).ignoreParseErrors).toBe(true);
    expect(read({ format: 'json', 'json.ignore-parse-errors': 'true' }).ignoreParseErrors).toBe(true);
    expect(read({ format: 'json', 'format.fail-on-error': 'false' }).ignoreParseErrors).toBe(true);
    expect(read({ format: 'json', 'format.fail-on-error': 'true', 'json.ignore-parse-errors': 'false' }).ignoreParseErrors).toBe(false);
  });

  it('refuses contradictory error policies', () => {
    expect(() => read({ format: 'csv', 'format.fail-on-error': 'true', 'csv.ignore-parse-errors': 'true' })).toThrow(
      "filesystem options 'csv.ignore-parse-errors' = 'true' and 'format.fail-on-error' = 'true' contradict each other",
    );
    expect(() => read({ format: 'json', 'format.ignore-parse-errors': 'false', 'json.ignore-parse-errors': 'true' })).toThrow(
      "filesystem options 'format.ignore-parse-errors' = 'false' and 'json.ignore-parse-errors' = 'true' contradict each other",
    );
    expect(() => read({ format: 'json', 'format.fail-on-error': 'false', 'format.ignore-parse-errors': 'false' })).toThrow('contradict each other');
  });

  it('refuses options of another format, bad booleans and bad characters', () => {
    expect(() => read({})).toThrow("filesystem needs option 'format'");
    expect(() => read({ format: 'json', 'csv.null-literal': '' })).toThrow("filesystem option 'csv.null-literal' applies only to 'format' = 'csv', not 'json'");
    expect(() => read({ format: 'csv', 'json.ignore-parse-errors': 'true' })).toThrow("filesystem option 'json.ignore-parse-errors' applies only to 'format' = 'json', not 'csv'");
    expect(() => read({ format: 'csv', 'csv.allow-comments': 'yes' })).toThrow("filesystem option 'csv.allow-comments' must be 'true' or 'false', got 'yes'");
    expect(() => read({ format: 'csv', 'csv.quote-character': '' })).toThrow("filesystem option 'csv.quote-character' must be one character other than a line break, got ''");
    expect(() => read({ format: 'csv', 'csv.field-delimiter': ';', 'csv.quote-character': ';' })).toThrow(
      "filesystem options 'csv.field-delimiter' and 'csv.quote-character' must differ, both are ';'",
    );
  });
});
