/**
 * The durable catalog of a working directory (`.weir/catalog.json`): the DDL of every table,
 * view, materialized view and function created by a session, in creation order, so that the next
 * weir process started there has them again. A materialized view also keeps the session settings
 * it was created under (checkpoint directory and interval, parallelism), which its job needs to
 * resume from its own checkpoints. Writes replace the file atomically (write, then rename). The DDL
 * may hold connection URLs with passwords, so the file is readable and writable by its owner only.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { WeirError } from '../common/errors.js';

/** What kind of object a stored statement creates. */
export type StoredKind = 'table' | 'view' | 'materialized-view' | 'function';

/** One object of the catalog, as the statement that created it. */
export interface StoredObject {
  readonly kind: StoredKind;
  readonly name: string;
  readonly ddl: string;
  /** The session settings in force when it was created (materialized views only). */
  readonly settings?: Readonly<Record<string, string>>;
  /** The view's part of the materialized views' job (materialized views only), so that it resumes its own state. */
  readonly instance?: string;
}

interface CatalogFile {
  readonly version: 1;
  readonly objects: readonly StoredObject[];
}

/** `rw-------`: the catalog's DDL may name passwords. */
const OWNER_ONLY = 0o600;

/** The catalog file of one working directory. */
export class CatalogStore {
  private objects: StoredObject[];

  /** Opens `path`, reading what an earlier process stored; a missing file is an empty catalog. */
  constructor(readonly path: string) {
    this.objects = readObjects(path);
  }

  /** The stored objects, oldest first. */
  list(): readonly StoredObject[] {
    return this.objects;
  }

  /** Adds an object, replacing a stored one of the same kind and name. */
  record(object: StoredObject): void {
    this.objects = [...this.objects.filter((o) => !(o.kind === object.kind && o.name === object.name)), object];
    this.write();
  }

  /** Forgets an object; nothing happens when it is not stored. */
  remove(kind: StoredKind, name: string): void {
    const kept = this.objects.filter((o) => !(o.kind === kind && o.name === name));
    if (kept.length === this.objects.length) return;
    this.objects = kept;
    this.write();
  }

  private write(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.tmp`;
    const file: CatalogFile = { version: 1, objects: this.objects };
    writeFileSync(temporary, JSON.stringify(file, null, 2) + '\n', { mode: OWNER_ONLY });
    chmodSync(temporary, OWNER_ONLY);
    renameSync(temporary, this.path);
  }
}

function readObjects(path: string): StoredObject[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let parsed: Partial<CatalogFile>;
  try {
    parsed = JSON.parse(text) as Partial<CatalogFile>;
  } catch (error) {
    throw new WeirError('EXECUTION_ERROR', `the catalog file ${path} is not valid JSON: ${(error as Error).message}`, { hint: 'move it away to start with an empty catalog' });
  }
  if (parsed.version !== 1 || !Array.isArray(parsed.objects)) {
    throw new WeirError('EXECUTION_ERROR', `the catalog file ${path} is not a weir catalog of version 1`, { hint: 'move it away to start with an empty catalog' });
  }
  return [...parsed.objects];
}
