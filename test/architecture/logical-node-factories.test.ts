/**
 * Logical plan nodes are built only through the `create` factory of their kind
 * (src/plan/logical/logical-node.ts), which derives the node's schema: an object literal
 * `kind: '<logical kind>'` anywhere else under src/ would record a schema of its own making. Folders
 * with node kinds of their own that share names with logical ones (the SQL AST, physical plan, job
 * graph, runtime, expressions) are not scanned; in any other file, a type position
 * (`readonly kind: ...`, `Extract<..., { kind: ... }>`) is not a construction.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const FACTORIES = 'plan/logical/logical-node.ts';
/** Folders (and a module) whose own kinds share names with logical ones: window-function.ts's 'aggregate' is a window function. */
const OWN_KINDS = ['sql/parse/', 'plan/physical/', 'plan/changelog/', 'dataflow/', 'runtime/', 'expr/', 'connectors/', 'common/window-function.ts'];

/** The kinds of LogicalNode, read from the union type so that a new kind is covered without editing this test. */
function logicalKinds(): string[] {
  const source = readFileSync(join(SRC, FACTORIES), 'utf8');
  const union = /export type LogicalNode =\s*([^;]+);/.exec(source)![1]!.split('|').map((s) => s.trim()).filter((s) => s !== '');
  return union.map((name) => {
    const body = new RegExp(`export interface ${name} \\{[^}]*?readonly kind: '([a-z-]+)'`, 's').exec(source);
    if (body === null) throw new Error(`no kind found for ${name}`);
    return body[1]!;
  });
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.includes('/generated/') ? [path] : [];
  });
}

/** `file:line: text` of each object literal building a logical node outside the factories. */
function literalConstructions(root: string, kinds: readonly string[]): string[] {
  const pattern = new RegExp(`\\bkind:\\s*'(${kinds.join('|')})'`);
  const found: string[] = [];
  for (const path of files(root)) {
    const rel = relative(root, path).split('\\').join('/');
    if (rel === FACTORIES || OWN_KINDS.some((folder) => rel.startsWith(folder))) continue;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const match = pattern.exec(line);
        if (match === null) return;
        const before = line.slice(0, match.index);
        if (/readonly\s+$/.test(before) || /Extract<[^>]*\{\s*$/.test(before)) return;
        found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('logical node factories', () => {
  it('reads every logical kind from the node union', () => {
    const kinds = logicalKinds();
    expect(kinds).toContain('project');
    expect(kinds).toContain('window-tvf');
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it('builds no logical node from an object literal outside logical-node.ts', () => {
    expect(literalConstructions(SRC, logicalKinds())).toEqual([]);
  });

  it('finds a literal construction, and not a type position or an allowed folder', () => {
    const root = mkdtempSync(join(tmpdir(), 'weir-factories-'));
    mkdirSync(join(root, 'sql/bind'), { recursive: true });
    mkdirSync(join(root, 'plan/physical'), { recursive: true });
    writeFileSync(join(root, 'sql/bind/bad.ts'), "const a = 1;\nplan = { kind: 'filter', input, condition, schema };\ntype F = Extract<LogicalNode, { kind: 'filter' }>;\ninterface X { readonly kind: 'join' }\n");
    writeFileSync(join(root, 'plan/physical/own.ts'), "return { kind: 'join', ...common };\n");
    try {
      expect(literalConstructions(root, logicalKinds())).toEqual(["sql/bind/bad.ts:2: plan = { kind: 'filter', input, condition, schema };"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
