/**
 * Where records end in a file of the line formats, found on the raw bytes (so that byte offsets
 * are exact and UTF-8 is decoded once per record): JSON records end at `\n`; CSV records end at
 * a `\n` outside a quoted field, by the same rules as the CSV decoder (a quoted field starts with
 * the quote character; inside, doubled quote characters are literal). A `\r` before the `\n` is
 * the caller's to strip. Also says which lines are not records: blank lines of JSON (as Flink's
 * JSON format skips empty messages) and, with `csv.allow-comments`, CSV lines starting with `#`.
 */
import type { FormatOptions } from './format-options.js';

/** Finds record boundaries in a buffer of one file's bytes. */
export interface RecordSplitter {
  /** The index of the `\n` ending the record that starts at `start`, or -1 when `bytes` ends first. */
  end(bytes: Buffer, start: number): number;
  /** True when bytes `[start, end)` (without the line break) hold no record. */
  skips(bytes: Buffer, start: number, end: number): boolean;
  /** True when a record may span several lines (CSV quoted line breaks). */
  readonly multiline: boolean;
}

const NEWLINE = 0x0a;
const HASH = 0x23;

/** The splitter of `options.format` ('json' or 'csv'). */
export function createLineRecordSplitter(options: FormatOptions): RecordSplitter {
  return options.format === 'csv' ? csvSplitter(options) : JSON_SPLITTER;
}

const JSON_SPLITTER: RecordSplitter = {
  multiline: false,
  end: (bytes, start) => bytes.indexOf(NEWLINE, start),
  skips: (bytes, start, end) => {
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
    }
    return true;
  },
};

/** The states of the CSV scan: at a field's start, inside an unquoted or quoted field, just after a quote inside one. */
const CsvState = { FieldStart: 0, Unquoted: 1, Quoted: 2, AfterQuote: 3 } as const;

function csvSplitter(options: FormatOptions): RecordSplitter {
  const quote = Buffer.from(options.csv.quoteCharacter, 'utf8');
  const delimiter = Buffer.from(options.csv.fieldDelimiter, 'utf8');
  const comments = options.csv.allowComments;
  const isComment = (bytes: Buffer, start: number): boolean => comments && bytes[start] === HASH;

  /** The state machine of the CSV decoder over bytes, from the record's start. */
  const scan = (bytes: Buffer, start: number): number => {
    let state: number = CsvState.FieldStart;
    let i = start;
    while (i < bytes.length) {
      if (state === CsvState.FieldStart) {
        if (matches(bytes, i, quote)) {
          state = CsvState.Quoted;
          i += quote.length;
          continue;
        }
        state = CsvState.Unquoted;
      }
      if (state === CsvState.Quoted) {
        const close = bytes.indexOf(quote, i);
        if (close < 0) return -1;
        state = CsvState.AfterQuote;
        i = close + quote.length;
        continue;
      }
      if (state === CsvState.AfterQuote) {
        if (matches(bytes, i, quote)) {
          state = CsvState.Quoted;
          i += quote.length;
          continue;
        }
        state = CsvState.Unquoted;
      }
      if (bytes[i] === NEWLINE) return i;
      if (matches(bytes, i, delimiter)) {
        state = CsvState.FieldStart;
        i += delimiter.length;
      } else {
        i++;
      }
    }
    return -1;
  };

  return {
    multiline: true,
    end: (bytes, start) => {
      const newline = bytes.indexOf(NEWLINE, start);
      if (isComment(bytes, start)) return newline;
      const firstQuote = bytes.indexOf(quote, start);
      if (firstQuote < 0 || (newline >= 0 && newline < firstQuote)) return newline;
      return scan(bytes, start);
    },
    skips: (bytes, start) => isComment(bytes, start),
  };
}

function matches(bytes: Buffer, at: number, sequence: Buffer): boolean {
  if (bytes[at] !== sequence[0]) return false;
  for (let k = 1; k < sequence.length; k++) if (bytes[at + k] !== sequence[k]) return false;
  return true;
}
