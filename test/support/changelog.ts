/**
 * Applies printed changelogs (`+I[1, a]`, `-U[...]`, `+U[...]`, `-D[...]`, optionally prefixed by
 * `id> `) to a multiset of rows, the way a dynamic table would, so that tests can compare the
 * final table with an expected one.
 */

/** A row as printed, split into its field texts. */
export type PrintedRow = string;

/** Parses one printed line into its kind and row text (the part inside the brackets). */
export function parseChangeLine(line: string): { identifier?: string; kind: '+I' | '-U' | '+U' | '-D'; row: PrintedRow } {
  const match = /^(?:(.+?)> )?([+-][IUD])\[(.*)\]$/.exec(line);
  if (match === null) throw new Error(`not a changelog line: ${line}`);
  return { ...(match[1] === undefined ? {} : { identifier: match[1] }), kind: match[2] as '+I' | '-U' | '+U' | '-D', row: match[3]! };
}

/**
 * The final table a changelog describes, as sorted row texts; throws when a retraction removes a
 * row that is not there (which would mean a wrong changelog).
 */
export function applyChangelog(lines: readonly string[]): string[] {
  const table = new Map<PrintedRow, number>();
  for (const line of lines) {
    const { kind, row } = parseChangeLine(line);
    const count = table.get(row) ?? 0;
    if (kind === '+I' || kind === '+U') {
      table.set(row, count + 1);
    } else {
      if (count === 0) throw new Error(`retraction of a row that is not in the table: ${line}`);
      if (count === 1) table.delete(row);
      else table.set(row, count - 1);
    }
  }
  return [...table.entries()].flatMap(([row, n]) => Array<string>(n).fill(row)).sort();
}

/** The changelog lines printed with the given identifier (`id> ...`), in order. */
export function linesWithIdentifier(stdout: string, identifier: string): string[] {
  const prefix = `${identifier}> `;
  return stdout.split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
}
