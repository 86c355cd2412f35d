/**
 * Lookups in a filesystem table (Flink's FileSystemLookupFunction): the whole table is read into
 * an in-memory index by key when the lookup opens, and read again on the first lookup after
 * `'lookup.cache.ttl'` (default 60 min) has passed. The files are read by the source reader, so
 * formats, options and bad-record handling are those of the source.
 */
import { ChangeBatch, type Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { LookupContext, LookupFunction, LookupResult } from '../../runtime/lookup-source.js';
import { encodeLookupKey, tableRowKey } from '../lookup/lookup-key.js';
import type { FileSourceOptions } from './file-source-options.js';
import { FileSourceReader } from './file-source-reader.js';

/** Flink's default for how long a loaded filesystem lookup table is used. */
export const FILE_LOOKUP_DEFAULT_TTL_MS = 60 * 60 * 1000;

const NO_ROWS: readonly Row[] = [];

/** Looks rows of one filesystem table up by its columns `keys`. */
export class FileLookupFunction implements LookupFunction {
  #index = new Map<string, Row[]>();
  #loadedAt = -Infinity;
  #context: LookupContext | undefined;

  constructor(
    private readonly table: string,
    private readonly schema: Schema,
    private readonly keys: readonly number[],
    private readonly options: FileSourceOptions,
    private readonly ttlMs: number,
  ) {}

  async open(context: LookupContext): Promise<void> {
    this.#context = context;
    await this.#load();
  }

  lookup(keys: readonly Row[]): LookupResult | Promise<LookupResult> {
    if (this.#context!.processingTime.now() >= this.#loadedAt + this.ttlMs) return this.#load().then(() => this.#answer(keys));
    return this.#answer(keys);
  }

  async close(): Promise<void> {
    this.#index = new Map();
  }

  #answer(keys: readonly Row[]): LookupResult {
    return keys.map((key) => this.#index.get(encodeLookupKey(key)) ?? NO_ROWS);
  }

  async #load(): Promise<void> {
    const context = this.#context!;
    const reader = new FileSourceReader(this.table, this.schema, { path: this.options.path, format: this.options.format });
    const index = new Map<string, Row[]>();
    const batch = new ChangeBatch();
    await reader.open({ subtask: 0, parallelism: 1, warn: (m) => context.warn(m) });
    try {
      for (;;) {
        batch.clear();
        let status = reader.poll(batch, 4096);
        if (typeof status !== 'string') status = await status;
        for (const row of batch.rows) {
          const key = tableRowKey(row, this.keys);
          if (key === undefined) continue;
          const rows = index.get(key);
          if (rows === undefined) index.set(key, [row]);
          else rows.push(row);
        }
        if (status === 'end') break;
      }
    } finally {
      await reader.close();
    }
    this.#index = index;
    this.#loadedAt = context.processingTime.now();
  }
}
