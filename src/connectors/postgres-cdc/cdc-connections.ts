/**
 * The two kinds of sessions the CDC source opens: ordinary ones (checks, setup, the snapshot) and
 * replication ones (`replication=database`: CREATE_REPLICATION_SLOT, START_REPLICATION). Both run
 * with `TimeZone = UTC` and `DateStyle = ISO`, which fixes the text form of every date and time
 * value the source parses, in the snapshot and in the change stream alike.
 */
import pg from 'pg';
import type { ConnectionTarget } from '../postgres/postgres-options.js';

/** Settings every session of the source starts with. */
const SESSION_OPTIONS = '-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=3';

/**
 * Connects a client; `onError` receives errors of the connection after it was established (the
 * server went away), which would otherwise crash the process.
 */
export async function connectClient(target: ConnectionTarget, applicationName: string, replication: boolean, onError: (error: Error) => void): Promise<pg.Client> {
  const client = new pg.Client({
    ...target.config,
    application_name: applicationName,
    options: SESSION_OPTIONS,
    ...(replication ? { replication: 'database' } : {}),
  } as pg.ClientConfig);
  client.on('error', onError);
  try {
    await client.connect();
  } catch (error) {
    await endClient(client, onError);
    throw error;
  }
  return client;
}

/**
 * Closes a session that is no longer needed; a failure to close it (the connection is usually
 * broken already) goes to `report`, never thrown over the error that is being handled.
 */
export async function endClient(client: pg.Client, report: (error: Error) => void): Promise<void> {
  await client.end().catch((error: unknown) => report(error instanceof Error ? error : new Error(String(error))));
}

/** Query options that hand every column back as PostgreSQL's text, bypassing pg's type parsers. */
export const RAW_TEXT: Pick<pg.QueryConfig, 'types'> = { types: { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig };

/** `"name"`, for SQL text. */
export const quoteIdentifier = (name: string): string => pg.escapeIdentifier(name);

/** `'text'`, for SQL text. */
export const quoteLiteral = (text: string): string => pg.escapeLiteral(text);
