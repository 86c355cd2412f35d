import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CreateTable, InsertStatement, SelectQuery } from '../../../src/sql/parse/ast.js';
import { parseScript } from '../../../src/sql/parse/parser.js';
import { NEXMARK_QUERIES_DIR, publishedSql } from '../../support/nexmark-published.js';


const readQuery = (file: string): string => publishedSql(file);

const files = existsSync(NEXMARK_QUERIES_DIR) ? readdirSync(NEXMARK_QUERIES_DIR).filter((file) => /^(ddl|q\d+)\.sql$/.test(file)).sort() : [];

describe('Nexmark queries', () => {
  it('are all there: ddl.sql and q0.sql to q23.sql', () => {
    expect(existsSync(NEXMARK_QUERIES_DIR)).toBe(true);
    expect(files).toHaveLength(25);
  });

  it.each(files)('%s parses', (file) => {
    const text = readQuery(file);
    const script = parseScript(text);
    expect(script.length).toBeGreaterThan(0);
    for (const entry of script) {
      expect(text.slice(entry.span.start.offset, entry.span.end.offset)).toBe(entry.text);
    }
  });

  it('ddl.sql declares the nested event rows, the computed event time and its watermark', () => {
    const [datagen] = parseScript(readQuery('ddl.sql'));
    const table = datagen!.statement as CreateTable;
    expect(table.columns.map((column) => `${column.kind}:${column.name.name}`)).toEqual([
      'physical-column:event_type', 'physical-column:person', 'physical-column:auction', 'physical-column:bid', 'computed-column:dateTime',
    ]);
    expect(table.watermark?.column.name).toBe('dateTime');
    expect(table.options.find((option) => option.key === 'bid.proportion')?.value).toBe('46');
  });

  it('q5 reads hopping windows from TABLE(HOP(...)) in both join inputs', () => {
    const insert = parseScript(readQuery('q5.sql'))[1]!.statement as InsertStatement;
    const select = insert.query as SelectQuery;
    expect(select.from).toMatchObject({ kind: 'join', type: 'INNER', left: { kind: 'derived-table' }, right: { kind: 'derived-table' } });
    const auctionBids = (select.from as { left: { query: SelectQuery } }).left.query;
    expect(auctionBids.from).toMatchObject({ kind: 'table-function', call: { name: { parts: [{ name: 'HOP' }] } } });
  });
});
