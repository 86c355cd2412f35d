/**
 * How the CLI prints finite results: `table` (aligned, Flink's tableau style), `csv`, `json`
 * (one array) or `ndjson` (one object per row, column names as keys, NULL as null). Binary
 * strings print as Flink's SQL client prints them, `x'0aff'` (a JSON string in json/ndjson).
 */
import { renderTable } from '../engine/result-format.js';
import { cellText } from './cell-text.js';
import type { TextTable } from '../engine/engine.js';
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

/** Final rows as text (Engine.queryText) as a table or CSV: NULL shown as `NULL` in a table, as an empty field in CSV. */
export function formatText(table: TextTable, format: 'table' | 'csv'): string {
  const result: Rows = {
    kind: 'rows',
    schema: table.columns.map((name) => ({ name, type: { kind: 'VARCHAR', nullable: true, length: 2147483647 } })),
    rows: table.rows.map((row) => [...row]),
  };
  return formatRows(result, format);
}

/** Final rows from the programmatic API (objects) as a finite result in a format; JSON keeps numbers and booleans as such. */
export function formatObjects(rows: readonly Record<string, unknown>[], format: OutputFormat): string {
  if (format === 'json') return JSON.stringify(rows, jsonReplacer);
  if (format === 'ndjson') return rows.map((row) => JSON.stringify(row, jsonReplacer)).join('\n');
  const names = Object.keys(rows[0] ?? {});
  const result: Rows = {
    kind: 'rows',
    schema: names.map((name) => ({ name, type: { kind: 'VARCHAR', nullable: true, length: 2147483647 } })),
    rows: rows.map((r) => names.map((n) => (r[n] === null || r[n] === undefined ? null : cellText(r[n])))),
  };
  return formatRows(result, format);
}

function jsonReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  if (original instanceof Date || original instanceof Uint8Array) return cellText(original);
  if (original instanceof Map) return Object.fromEntries(original);
  return jsonValue(value);
}

function jsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return cellText(value);
  return value;
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
