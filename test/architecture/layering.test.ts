/**
 * Enforces the dependency direction of DESIGN.md on every import under src/:
 * common ← expr ← sql ← plan → dataflow ← runtime ← connectors; engine imports them all; cli only
 * engine. The logical plan (plan/logical) is the binder's output, an IR that imports only common
 * and expr, so sql/bind may build it (the flow `sql/bind ─► plan/logical` of DESIGN.md); nothing
 * else in sql sees plan. Also: no cycles between layers, pg/kysely only in connectors/postgres and connectors/postgres-cdc,
 * nats only in connectors/nats, PGlite only in connectors/postgres, node-sql-parser and the generated parser only in sql/parse.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** What each layer may import (besides itself). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  common: [],
  expr: ['common'],
  sql: ['common', 'expr', 'plan/logical'],
  'plan/logical': ['common', 'expr'],
  plan: ['common', 'expr', 'sql', 'dataflow', 'plan/logical'],
  dataflow: ['common', 'expr'],
  runtime: ['common', 'expr', 'dataflow'],
  connectors: ['common', 'expr', 'dataflow', 'runtime'],
  engine: ['common', 'expr', 'sql', 'plan', 'plan/logical', 'dataflow', 'runtime', 'connectors'],
  cli: ['engine'],
  '.': ['engine', 'common'],
};

/** Packages only one folder may import. */
const PACKAGE_OWNERS: readonly { pattern: RegExp; owners: readonly string[] }[] = [
  { pattern: /^(pg|pg-copy-streams|kysely)(\/|$)/, owners: ['connectors/postgres/', 'connectors/postgres-cdc/'] },
  { pattern: /^node-sql-parser(\/|$)/, owners: ['sql/parse/'] },
  { pattern: /^nats(\/|$)/, owners: ['connectors/nats/'] },
  { pattern: /^@electric-sql\/pglite/, owners: ['connectors/postgres/'] },
];

interface ImportEdge {
  readonly file: string;
  readonly specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    edges.push({ file, specifier: (match[1] ?? match[2])! });
  }
  return edges;
}

function layerOf(path: string): string {
  const parts = relative(SRC, path).split(/[\\/]/);
  if (parts.length === 1) return '.';
  if (parts[0] === 'plan' && parts[1] === 'logical') return 'plan/logical';
  return parts[0]!;
}

function isInsideSrc(file: string, specifier: string): boolean {
  return !relative(SRC, resolve(dirname(file), specifier)).startsWith('..');
}

const files = sourceFiles(SRC);
const edges = files.flatMap(importsOf);

describe('layering', () => {
  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('imports only point to allowed layers', () => {
    const violations = edges
      .filter((e) => e.specifier.startsWith('.') && isInsideSrc(e.file, e.specifier))
      .flatMap((e) => {
        const from = layerOf(e.file);
        const target = resolve(dirname(e.file), e.specifier);
        const to = layerOf(target);
        if (from === to || ALLOWED[from]?.includes(to)) return [];
        return [`${relative(SRC, e.file)} imports ${e.specifier} (${from} → ${to})`];
      });
    expect(violations).toEqual([]);
  });

  it('runtime never sees sql or plan; connectors never see sql, plan or engine', () => {
    const bad = edges.filter((e) => {
      const from = layerOf(e.file);
      const to = e.specifier.startsWith('.') ? layerOf(resolve(dirname(e.file), e.specifier)) : '';
      return (from === 'runtime' || from === 'connectors') && ['sql', 'plan', 'engine', 'cli'].includes(to);
    });
    expect(bad.map((e) => `${relative(SRC, e.file)} → ${e.specifier}`)).toEqual([]);
  });

  it('only the owning folder imports pg, kysely, nats or node-sql-parser', () => {
    const violations = edges.flatMap((e) => {
      const rule = PACKAGE_OWNERS.find((p) => p.pattern.test(e.specifier));
      if (rule === undefined) return [];
      const file = relative(SRC, e.file).split(/[\\/]/).join('/');
      return rule.owners.some((owner) => file.startsWith(owner)) ? [] : [`${file} imports ${e.specifier}`];
    });
    expect(violations).toEqual([]);
  });

  it('only sql/parse imports the generated parser', () => {
    const violations = edges.filter((e) => e.specifier.includes('/generated/') && !relative(SRC, e.file).startsWith('sql/parse'));
    expect(violations.map((e) => relative(SRC, e.file))).toEqual([]);
  });

  it('has no import cycles between layers', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges.filter((x) => x.specifier.startsWith('.') && isInsideSrc(x.file, x.specifier))) {
      const from = layerOf(e.file);
      const to = layerOf(resolve(dirname(e.file), e.specifier));
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (node: string, path: string[]): void => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
        return;
      }
      state.set(node, 'visiting');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});
