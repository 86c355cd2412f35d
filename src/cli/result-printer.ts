/**
 * How the CLI prints results: finite tables as `table` (aligned, Flink's tableau style), `csv`,
 * `json` (one array) or `ndjson` (one object per row, column names as keys, NULL as null); a
 * streaming query as tableau rows with their change kind, as they arrive.
 */
import type { Change } from '../engine/engine.js';
import { renderTable } from '../engine/result-format.js';
import type { StatementResult } from '../engine/statement-result.js';

/** The output formats of `--format` and `.mode`. */
export const FORMATS = ['table', 'csv', 'json', 'ndjson'] as const;

/** One of {@link FORMATS}. */
export type OutputFormat = (typeof FORMATS)[number];

type Rows = Extract<StatementResult, { kind: 'rows' }>;

/** A finite result in the given format. */
export function formatRows(result: Rows, format: OutputFormat): string {
  if (format === 'table') return renderTable(result);
  const names = result.schema.map((f) => f.name);
  const objects = result.rows.map((row) => Object.fromEntries(names.map((n, i) => [n, jsonValue(row[i])])));
  switch (format) {
    case 'json':
      return JSON.stringify(objects);
    case 'ndjson':
      return objects.map((o) => JSON.stringify(o)).join('\n');
    case 'csv':
      return [names.map(csvField).join(','), ...result.rows.map((row) => row.map((v) => (v === null || v === undefined ? '' : csvField(String(jsonValue(v))))).join(','))].join('\n');
  }
}

/** Final rows from the programmatic API (objects) as a finite result in a format; JSON keeps numbers and booleans as such. */
export function formatObjects(rows: readonly Record<string, unknown>[], format: OutputFormat): string {
  if (format === 'json') return JSON.stringify(rows, jsonReplacer);
  if (format === 'ndjson') return rows.map((row) => JSON.stringify(row, jsonReplacer)).join('\n');
  const names = Object.keys(rows[0] ?? {});
  const result: Rows = {
    kind: 'rows',
    schema: names.map((name) => ({ name, type: { kind: 'VARCHAR', nullable: true, length: 2147483647 } })),
    rows: rows.map((r) => names.map((n) => (r[n] === null || r[n] === undefined ? null : display(r[n])))),
  };
  return formatRows(result, format);
}

/** Prints a live changelog in tableau style: a header, then one line per change with its kind. */
export class ChangelogPrinter {
  private widths: number[] = [];
  private header: string[] | undefined;
  count = 0;

  constructor(private readonly write: (text: string) => void) {}

  /** Prints one change (the header first, from the first row's columns). */
  print(change: Change): void {
    if (this.header === undefined) {
      this.header = ['op', ...Object.keys(change.row)];
      this.widths = this.header.map((h) => Math.max(h.length, h === 'op' ? 2 : 12));
      this.write(this.border() + '\n' + this.line(this.header) + '\n' + this.border() + '\n');
    }
    this.count++;
    this.write(this.line([change.op, ...Object.values(change.row).map(display)]) + '\n');
  }

  /** Closes the table and says how many rows were printed. */
  finish(): void {
    if (this.header !== undefined) this.write(this.border() + '\n');
    this.write(`Received a total of ${this.count} row${this.count === 1 ? '' : 's'}\n`);
  }

  private border(): string {
    return '+' + this.widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  }

  private line(values: readonly string[]): string {
    return '|' + values.map((v, i) => ' ' + fit(v, this.widths[i]!) + ' ').join('|') + '|';
  }
}

function fit(text: string, width: number): string {
  return text.length > width ? text.slice(0, width - 1) + '…' : text.padStart(width);
}

function display(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function jsonReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  if (original instanceof Date) return display(original);
  if (original instanceof Map) return Object.fromEntries(original);
  return jsonValue(value);
}

function jsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
