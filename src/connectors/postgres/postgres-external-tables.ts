/**
 * The postgres connector's tables outside a job: a SELECT that reads only materialized views runs
 * here, on their database, as the user wrote it (the REPL doubles as a Postgres client for the
 * results), and DROP MATERIALIZED VIEW drops the view's table and forgets its commits.
 *
 * Values come back in Postgres's text format and are typed by column: the types weir knows are
 * parsed into weir values (the same parsers the CDC source uses); anything else stays text.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { WeirError } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { ExternalResult, ExternalTables } from '../api/connector.js';
import { textParser } from './postgres-text-parser.js';
import { describeError, sqlState } from './driver-errors.js';
import { openSinkDatabase } from './postgres-database.js';
import { listPrepared, rollbackPrepared } from './prepared-transactions.js';
import { gidPrefix } from './transaction-ids.js';
import { parsePostgresSinkOptions, parseTableName, scrubPassword } from './postgres-options.js';
import { resolveServer, type ResolvedServer } from './server-resolution.js';

/** pg's option that keeps every value as the server's text. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** Reading and dropping postgres tables; see the module comment. */
export const postgresExternalTables: ExternalTables = {
  async query(options, statement) {
    const server = await resolveServer('materialized view', options['url'], process.env);
    try {
      const client = new pg.Client({ ...server.connection.config, application_name: 'weir query', types: RAW_TEXT });
      await run(server, 'connect', () => client.connect());
      try {
        await run(server, 'set up the session', () => client.query("SET TimeZone = 'UTC'; SET DateStyle = 'ISO'"));
        const result = await run(server, 'run the query', () => client.query({ text: statement, rowMode: 'array' }));
        return typedResult(result);
      } finally {
        await client.end().catch(() => undefined);
      }
    } finally {
      await server.release();
    }
  },

  async drop(options, table, jobKey) {
    const parsed = parsePostgresSinkOptions(new Map(Object.entries(options)));
    const name = parsed.tableName ?? parseTableName(table);
    const server = await resolveServer(table, parsed.url, process.env);
    const database = openSinkDatabase(server.connection.config, 'weir drop', 1, () => undefined);
    try {
      await run(server, `drop table ${name.table}`, async () => {
        for (const { gid } of await listPrepared(database.db, gidPrefix(jobKey, parsed.sink ?? table))) await rollbackPrepared(database.db, gid);
        await database.db.transaction().execute(async (trx) => {
          await sql`DROP TABLE IF EXISTS ${name.schema === undefined ? sql.id(name.table) : sql.id(name.schema, name.table)}`.execute(trx);
          const log = await sql<{ present: boolean }>`SELECT to_regclass('weir.sink_commits') IS NOT NULL AS present`.execute(trx);
          if (log.rows[0]?.present) await trx.deleteFrom('weir.sink_commits').where('job', '=', jobKey).where('sink', '=', parsed.sink ?? table).execute();
        });
      });
    } finally {
      await database.db.destroy();
      await server.release();
    }
  },
};

/** The weir type of a column, from its type OID and modifier; undefined for types read as text. */
function columnType(oid: number, modifier: number): SqlType | undefined {
  switch (oid) {
    case 16:
      return SqlTypes.boolean();
    case 17:
      return SqlTypes.bytes();
    case 21:
      return SqlTypes.smallint();
    case 23:
      return SqlTypes.int();
    case 20:
      return SqlTypes.bigint();
    case 700:
      return SqlTypes.float();
    case 701:
      return SqlTypes.double();
    case 1700:
      return modifier < 0 ? undefined : SqlTypes.decimal(((modifier - 4) >> 16) & 0xffff, (modifier - 4) & 0xffff);
    case 1082:
      return SqlTypes.date();
    case 1114:
      return SqlTypes.timestamp(6);
    case 1184:
      return SqlTypes.timestampLtz(6);
    default:
      return undefined;
  }
}

function typedResult(result: pg.QueryResult<unknown[]>): ExternalResult {
  const fields = result.fields ?? [];
  const types = fields.map((f) => columnType(f.dataTypeID, f.dataTypeModifier) ?? SqlTypes.string());
  const parsers = types.map((type) => textParser(type));
  const schema: Field[] = fields.map((f, i) => ({ name: f.name, type: types[i]! }));
  const rows = (result.rows ?? []).map((row) => row.map((value, i) => (value === null ? null : parsers[i]!(value as string))));
  return { schema, rows };
}

async function run<T>(server: ResolvedServer, action: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof WeirError) throw error;
    const state = sqlState(error);
    throw new WeirError('CONNECTOR_ERROR', `could not ${action} at ${server.connection.display}: ${scrubPassword(describeError(error), server.connection.password)}${state === undefined ? '' : ` (SQLSTATE ${state})`}`, {
      cause: error,
    });
  }
}
