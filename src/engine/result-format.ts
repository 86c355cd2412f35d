/** Text forms of results for clients: values as Flink prints them, finite results as aligned tables. */
import { renderError as renderCommonError } from '../common/errors.js';
import type { Schema } from '../common/schema.js';
import { formatValue } from '../common/value-format.js';
import type { StatementResult } from './statement-result.js';

/** A value as the print connector and the SQL client show it; SQL NULL is `NULL`. */
export function displayValue(value: unknown, type: Schema[number]['type']): string {
  return value === null || value === undefined ? 'NULL' : formatValue(value, type);
}

/** A finite result as a bordered, aligned table followed by the row count (Flink's tableau style). */
export function renderTable(result: Extract<StatementResult, { kind: 'rows' }>): string {
  if (result.rows.length === 0) return 'Empty set';
  const header = result.schema.map((f) => f.name);
  const cells = result.rows.map((row) => row.map((v, i) => displayValue(v, result.schema[i]!.type)));
  const count = `${result.rows.length} row${result.rows.length === 1 ? '' : 's'} in set`;
  return [...renderGrid(header, cells), count].join('\n');
}

/** Cells under a header as the lines of a bordered table, each column as wide as its widest cell, values right-aligned. */
export function renderGrid(header: readonly string[], cells: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const border = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  const line = (values: readonly string[]): string => '|' + values.map((v, i) => ' ' + v.padStart(widths[i]!) + ' ').join('|') + '|';
  return [border, line(header), border, ...cells.map(line), border];
}

/** Renders an error Postgres-style (see common/errors.ts). */
export function renderError(error: unknown, source?: string, sourceName?: string): string {
  return renderCommonError(error, source, sourceName);
}
