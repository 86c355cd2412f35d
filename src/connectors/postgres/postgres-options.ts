/**
 * The postgres sink's options, the server it connects to (option `url`, else `DATABASE_URL`,
 * else the libpq `PG*` variables) and the masking that keeps passwords out of every message.
 */
import { parseDuration } from '../../common/duration.js';
import { closestName, WeirError } from '../../common/errors.js';
import { LOOKUP_OPTION_KEYS } from '../lookup/lookup-options.js';

/** How the sink commits: two-phase commit per checkpoint, or a plain commit at each barrier. */
export type SinkSemantic = 'exactly-once' | 'at-least-once';

/** The semantics `'sink.semantic'` accepts. */
export const SINK_SEMANTICS: readonly SinkSemantic[] = ['exactly-once', 'at-least-once'];

/** Rows buffered per subtask before they are written into the open transaction, unless the option says otherwise. */
export const DEFAULT_MAX_BUFFERED_ROWS = 50_000;

/** Options a user may write in the DDL. */
export const USER_OPTION_KEYS = ['connector', 'url', 'table-name', 'sink.semantic', 'sink.buffer-flush.max-rows', 'sink.parallelism', 'sink.transaction-group', 'sink.prepared-transaction.warn-age'] as const;

/** Prepared transactions of weir older than this are reported when an exactly-once sink starts, unless the option says otherwise. */
export const DEFAULT_PREPARED_WARN_AGE = '1 h';

/** The transaction group sinks join unless they name another, and the name that joins none. */
export const DEFAULT_TRANSACTION_GROUP = 'default';
export const NO_TRANSACTION_GROUP = 'none';

/**
 * Options the engine adds to a sink's spec: `weir.job` names the job and `weir.sink` the sink
 * within it, for gids and marker rows. They default to the sink table's name.
 */
export const ENGINE_OPTION_KEYS = ['weir.job', 'weir.sink'] as const;

/** A PostgreSQL table name as written in `'table-name'`; `schema` is absent when the name is not qualified. */
export interface TableName {
  readonly schema: string | undefined;
  readonly table: string;
}

/** The sink's options, parsed and checked. */
export interface PostgresSinkOptions {
  /** The `url` option; absent when the server comes from the environment. */
  readonly url: string | undefined;
  /** The `table-name` option; absent for the weir table's own name. */
  readonly tableName: TableName | undefined;
  readonly semantic: SinkSemantic;
  /** Buffered rows (net changes for an upsert sink) beyond which they are written into the open transaction. */
  readonly maxBufferedRows: number;
  readonly job: string | undefined;
  readonly sink: string | undefined;
  /** The group whose sinks (of one job, into one database) commit each checkpoint in one transaction; undefined for none. */
  readonly transactionGroup: string | undefined;
  /** Weir prepared transactions of the cluster older than this (ms) are warned about at the start; 0: never. */
  readonly preparedWarnAgeMs: number;
}

/** PostgreSQL truncates longer identifiers, which would make the created table differ from the one checked. */
export const MAX_IDENTIFIER_BYTES = 63;

/** Reads and checks the options; throws INVALID_OPTION naming the option (a URL is shown masked). */
export function parsePostgresSinkOptions(options: ReadonlyMap<string, string>): PostgresSinkOptions {
  const known: readonly string[] = [...USER_OPTION_KEYS, ...ENGINE_OPTION_KEYS, ...LOOKUP_OPTION_KEYS];
  for (const key of options.keys()) {
    if (known.includes(key)) continue;
    const guess = closestName(key, USER_OPTION_KEYS);
    throw new WeirError('INVALID_OPTION', `postgres does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
  }
  const url = options.get('url');
  if (url !== undefined) checkUrl(url, "option 'url'");
  const table = options.get('table-name');
  const semantic = options.get('sink.semantic') ?? 'exactly-once';
  if (!(SINK_SEMANTICS as readonly string[]).includes(semantic)) {
    throw new WeirError('INVALID_OPTION', `postgres option 'sink.semantic' must be 'exactly-once' or 'at-least-once', got '${semantic}'`);
  }
  const parallelism = options.get('sink.parallelism');
  if (parallelism !== undefined && !/^\s*[1-9]\d*\s*$/.test(parallelism)) {
    throw new WeirError('INVALID_OPTION', `postgres option 'sink.parallelism' must be a positive integer, got '${parallelism}'`);
  }
  const group = options.get('sink.transaction-group') ?? DEFAULT_TRANSACTION_GROUP;
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(group)) {
    throw new WeirError('INVALID_OPTION', `postgres option 'sink.transaction-group' must be a name of letters, digits, '_' and '-' (at most 32), or '${NO_TRANSACTION_GROUP}'; got '${group}'`);
  }
  return {
    url,
    tableName: table === undefined ? undefined : parseTableName(table),
    transactionGroup: group === NO_TRANSACTION_GROUP ? undefined : group,
    semantic: semantic as SinkSemantic,
    maxBufferedRows: positiveInt(options.get('sink.buffer-flush.max-rows'), 'sink.buffer-flush.max-rows') ?? DEFAULT_MAX_BUFFERED_ROWS,
    job: options.get('weir.job'),
    sink: options.get('weir.sink'),
    preparedWarnAgeMs: parseDuration(options.get('sink.prepared-transaction.warn-age') ?? DEFAULT_PREPARED_WARN_AGE, 'sink.prepared-transaction.warn-age'),
  };
}

/**
 * Parses `table`, `schema.table` or double-quoted parts (`"My Schema"."a.b"`, `""` for a quote).
 * Names are taken as written: case is kept, since weir always quotes them.
 */
export function parseTableName(text: string): TableName {
  const parts: string[] = [];
  let i = 0;
  while (i <= text.length) {
    let part = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw badTableName(text);
        if (text[i] === '"') {
          if (text[i + 1] !== '"') break;
          i++;
        }
        part += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== '.' && text[i] !== '"') part += text[i++];
    }
    if (part === '') throw badTableName(text);
    parts.push(part);
    if (i === text.length) break;
    if (text[i] !== '.') throw badTableName(text);
    i++;
  }
  if (parts.length > 2) throw badTableName(text);
  for (const part of parts) checkIdentifierLength(part, `option 'table-name'`);
  return parts.length === 2 ? { schema: parts[0], table: parts[1]! } : { schema: undefined, table: parts[0]! };
}

/** Throws INVALID_OPTION when PostgreSQL would truncate the identifier. */
export function checkIdentifierLength(name: string, what: string): void {
  if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new WeirError('INVALID_OPTION', `postgres ${what}: '${name}' is longer than PostgreSQL's limit of ${MAX_IDENTIFIER_BYTES} bytes for a name`);
  }
}

/**
 * The URL with its password (in the user part or a `password` query parameter) replaced by `***`:
 * `postgres://user:***@host/db`. Text that is not a URL is masked by pattern, so nothing that
 * looks like a password survives.
 */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (key.toLowerCase() === 'password') parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return url.replace(/(\/\/[^:/?#@]*:)[^@]*@/, '$1***@').replace(/([?&]password=)[^&]*/gi, '$1***');
  }
}

/** Where the sink connects to: a configuration for `pg`, how to print it, and the password to scrub from messages. */
export interface ConnectionTarget {
  readonly config: ConnectionConfig;
  /** A URL naming the server, with the password masked. */
  readonly display: string;
  readonly password: string | undefined;
}

/** The subset of `pg`'s client configuration the sink sets. */
export type ConnectionConfig =
  | { readonly connectionString: string }
  | { readonly host?: string; readonly port?: number; readonly user?: string; readonly password?: string; readonly database?: string };

const PG_VARIABLES = ['PGHOST', 'PGPORT', 'PGUSER', 'PGPASSWORD', 'PGDATABASE'] as const;

/** True when the environment names a server: `DATABASE_URL` or one of the libpq variables. */
export function serverInEnvironment(env: NodeJS.ProcessEnv): boolean {
  return nonEmpty(env.DATABASE_URL) !== undefined || PG_VARIABLES.some((name) => nonEmpty(env[name]) !== undefined);
}

/**
 * The server of a sink (or, with `role`, of another user of a table): its `url` option, else
 * `DATABASE_URL`, else the libpq variables (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
 * `PGDATABASE`, with libpq's defaults for the missing ones). Throws CONNECTOR_ERROR naming the
 * table when none is set.
 */
export function resolveConnection(
  sink: string,
  url: string | undefined,
  env: NodeJS.ProcessEnv,
  role: { readonly label: string; readonly verb: string } = { label: `postgres sink '${sink}'`, verb: 'write to' },
): ConnectionTarget {
  const chosen = url ?? nonEmpty(env.DATABASE_URL);
  if (chosen !== undefined) {
    checkUrl(chosen, url === undefined ? 'DATABASE_URL' : "option 'url'");
    const password = new URL(chosen).password;
    return { config: { connectionString: chosen }, display: maskUrl(chosen), password: password === '' ? undefined : safeDecode(password) };
  }
  if (!PG_VARIABLES.some((name) => nonEmpty(env[name]) !== undefined)) {
    throw new WeirError('CONNECTOR_ERROR', `${role.label} does not know which server to ${role.verb}`, {
      hint: "set option 'url' (postgres://user@host:5432/database), or DATABASE_URL, or the PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE variables",
    });
  }
  const host = nonEmpty(env.PGHOST) ?? 'localhost';
  const portText = nonEmpty(env.PGPORT) ?? '5432';
  const port = Number(portText);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new WeirError('CONNECTOR_ERROR', `${role.label}: PGPORT must be a port number, got '${portText}'`);
  }
  const user = nonEmpty(env.PGUSER) ?? nonEmpty(env.USER) ?? 'postgres';
  const database = nonEmpty(env.PGDATABASE) ?? user;
  const password = nonEmpty(env.PGPASSWORD);
  const shownHost = host.startsWith('/') ? `localhost:${port}` : `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const socket = host.startsWith('/') ? `?host=${encodeURIComponent(host)}` : '';
  const userPart = encodeURIComponent(user) + (password === undefined ? '' : ':***');
  return {
    config: { host, port, user, database, ...(password === undefined ? {} : { password }) },
    display: `postgres://${userPart}@${shownHost}/${encodeURIComponent(database)}${socket}`,
    password,
  };
}

/** The message with every occurrence of the password replaced by `***` (one shorter than 3 characters is left: it would mangle the text, not hide anything). */
export function scrubPassword(message: string, password: string | undefined): string {
  return password === undefined || password.length < 3 ? message : message.split(password).join('***');
}

function checkUrl(url: string, what: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new WeirError('INVALID_OPTION', `postgres ${what} must be a URL such as postgres://user@host:5432/database, got '${maskUrl(url)}'`);
  }
}

function positiveInt(text: string | undefined, key: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isSafeInteger(value) || value <= 0) {
    throw new WeirError('INVALID_OPTION', `postgres option '${key}' must be a positive integer, got '${text}'`);
  }
  return value;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function badTableName(text: string): WeirError {
  return new WeirError(
    'INVALID_OPTION',
    `postgres option 'table-name' must be 'table' or 'schema.table' (double-quote a name that contains a dot or a quote), got '${text}'`,
  );
}
