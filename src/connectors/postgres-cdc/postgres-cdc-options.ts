/**
 * The options of the `postgres-cdc` source: the server (as for the postgres sink: option `url`,
 * else `DATABASE_URL`, else the `PG*` variables), the captured table, the replication slot and
 * publication (named after the table unless given), and how often to retry a lost server.
 */
import { createHash } from 'node:crypto';
import type { OptionSpec } from '../../common/connector-descriptor.js';
import { closestName, WeirError } from '../../common/errors.js';
import { checkIdentifierLength, maskUrl, parseTableName, type TableName } from '../postgres/postgres-options.js';

/** Consecutive failed attempts to reach the server before the job fails, unless the option says otherwise. */
export const DEFAULT_MAX_RETRIES = 20;

/** What `WITH (...)` may hold. */
export const CDC_OPTIONS: readonly OptionSpec[] = [
  { key: 'connector', required: true, description: "'postgres-cdc'" },
  {
    key: 'url',
    description: 'The server, as postgres://user:password@host:5432/database (a role with REPLICATION). Default: DATABASE_URL, else the PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE variables.',
  },
  { key: 'table-name', required: true, description: "The captured table, 'table' or 'schema.table'; it needs a primary key (and REPLICA IDENTITY FULL unless 'changelog-mode' is 'upsert')." },
  {
    key: 'changelog-mode',
    description:
      "'all': +I/-U/+U/-D with whole old rows, which needs REPLICA IDENTITY FULL; 'upsert': updates without their old row and deletes by key, for REPLICA IDENTITY DEFAULT (the primary key), normalized into a full changelog by a ChangelogNormalize step that keeps the last row of each key in state.",
    default: 'all',
  },
  { key: 'slot.name', description: 'The logical replication slot (created when missing; lower-case letters, digits and _). Default: weir_cdc_<table>_<hash>.' },
  { key: 'publication.name', description: 'The publication of the table (created when missing). Default: the slot name.' },
  { key: 'connect.max-retries', description: 'Consecutive failed attempts to reach the server before the job fails.', default: String(DEFAULT_MAX_RETRIES) },
];

/** The options, parsed and checked. */
export interface PostgresCdcOptions {
  /** The `url` option; absent when the server comes from the environment. */
  readonly url: string | undefined;
  readonly table: TableName;
  readonly slotName: string;
  readonly publicationName: string;
  readonly maxRetries: number;
  /** `all`: whole old rows (REPLICA IDENTITY FULL); `upsert`: new rows and keys of deleted rows (DEFAULT or FULL). */
  readonly changelogMode: CdcChangelogMode;
}

/** How the source reads changes: see the `changelog-mode` option. */
export type CdcChangelogMode = 'all' | 'upsert';

const SLOT_NAME = /^[a-z0-9_]{1,63}$/;

/** Reads and checks the options; throws INVALID_OPTION naming the option (a URL is shown masked). */
export function parsePostgresCdcOptions(options: ReadonlyMap<string, string>): PostgresCdcOptions {
  const keys = CDC_OPTIONS.map((o) => o.key);
  for (const key of options.keys()) {
    if (keys.includes(key)) continue;
    const guess = closestName(key, keys);
    throw new WeirError('INVALID_OPTION', `postgres-cdc does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
  }
  const url = options.get('url');
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
    throw new WeirError('INVALID_OPTION', `postgres-cdc option 'url' must be a URL such as postgres://user@host:5432/database, got '${maskUrl(url)}'`);
  }
  const tableText = options.get('table-name');
  if (tableText === undefined) throw new WeirError('INVALID_OPTION', "postgres-cdc needs option 'table-name': the table to capture, 'table' or 'schema.table'");
  const table = parseTableName(tableText);
  const slotName = options.get('slot.name') ?? defaultSlotName(tableText);
  if (!SLOT_NAME.test(slotName)) {
    throw new WeirError('INVALID_OPTION', `postgres-cdc option 'slot.name' must be 1 to 63 lower-case letters, digits or underscores, got '${slotName}'`);
  }
  const publicationName = options.get('publication.name') ?? slotName;
  if (publicationName === '') throw new WeirError('INVALID_OPTION', "postgres-cdc option 'publication.name' must not be empty");
  checkIdentifierLength(publicationName, "option 'publication.name'");
  const retries = options.get('connect.max-retries');
  const maxRetries = retries === undefined ? DEFAULT_MAX_RETRIES : Number(retries.trim());
  if (retries !== undefined && (retries.trim() === '' || !Number.isSafeInteger(maxRetries) || maxRetries < 0)) {
    throw new WeirError('INVALID_OPTION', `postgres-cdc option 'connect.max-retries' must be a non-negative integer, got '${retries}'`);
  }
  const mode = (options.get('changelog-mode') ?? 'all').trim().toLowerCase();
  if (mode !== 'all' && mode !== 'upsert') {
    throw new WeirError('INVALID_OPTION', `postgres-cdc option 'changelog-mode' must be 'all' or 'upsert', got '${options.get('changelog-mode')}'`);
  }
  return { url, table, slotName, publicationName, maxRetries, changelogMode: mode };
}

/** `weir_cdc_<table>_<8 hex digits of a hash of the name as written>`: stable, valid, and distinct per table. */
function defaultSlotName(tableText: string): string {
  const words = tableText.toLowerCase().replace(/[^a-z0-9_]+/g, '_').slice(0, 40);
  return `weir_cdc_${words}_${createHash('sha256').update(tableText).digest('hex').slice(0, 8)}`;
}
