/**
 * The CDC source against a server of its own that is restarted and crashed while changes are
 * being made: the reader warns, reconnects with backoff and continues after the last transaction
 * it received, so that every change arrives exactly once. A fast shutdown waits for logical
 * walsenders until their client confirms everything sent; the reader, which confirms only
 * checkpointed positions, must leave rather than hold the shutdown up.
 */
import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';
import { cdcReader, dropSlots, expectTable, materialize, readFor, readUntil, type Change } from './cdc-test-support.js';

let cluster: PostgresCluster;

const schema: Schema = [
  { name: 'id', type: SqlTypes.int(false) },
  { name: 'v', type: SqlTypes.int() },
];

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(() => cluster?.destroy());

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Stops the server without blocking this process's event loop (the cluster's own `stop` is
 * synchronous): a fast shutdown waits for the replication client's replies, which the reader
 * under test must be free to send.
 */
function stopWhileRunning(mode: 'fast' | 'immediate'): Promise<void> {
  const pgCtl = join(process.env.WEIR_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin', 'pg_ctl');
  const args = ['-D', cluster.dataDir, '-m', mode, '-w', '-t', '60', 'stop'];
  const [file, argv] = userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', pgCtl, ...args]] : [pgCtl, args];
  return new Promise((resolve, reject) => execFile(file, argv, (error) => (error === null ? resolve() : reject(error))));
}

async function rows(client: pg.Client, table: string): Promise<Row[]> {
  return (await client.query<{ id: number; v: number }>(`SELECT id, v FROM ${table}`)).rows.map((r) => [r.id, r.v]);
}

describe('a Postgres that goes away', () => {
  for (const mode of ['fast', 'immediate'] as const) {
    it(`is reconnected to after a ${mode === 'fast' ? 'restart' : 'crash'}, losing and repeating nothing`, async () => {
      const table = `restart_${mode}`;
      let admin = await connect();
      await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v int)`);
      await admin.query(`ALTER TABLE ${table} REPLICA IDENTITY FULL`);
      await admin.query(`INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, 100) g`);
      const warnings: string[] = [];
      const reader = cdcReader(cluster.url, table, schema, ['id'], { 'slot.name': table });
      await reader.open({ subtask: 0, parallelism: 1, warn: (m) => warnings.push(m) });
      const changes: Change[] = [];
      try {
        await readUntil(reader, changes, (c) => c.length >= 100 && reader.checkpointable());
        for (let i = 1; i <= 20; i++) await admin.query(`UPDATE ${table} SET v = v + 1 WHERE id % 20 = ${i % 20}`);
        await readUntil(reader, changes, (c) => c.length >= 100 + 20 * 10 && reader.checkpointable());
        reader.currentOffset(1);
        reader.notifyCheckpointComplete(1);
        await admin.query(`UPDATE ${table} SET v = v + 1 WHERE id = 1`);
        await readUntil(reader, changes, (c) => c.length >= 100 + 20 * 10 + 2);
        await admin.end();
        await stopWhileRunning(mode);
        cluster.start();
        admin = await connect();
        await admin.query(`DELETE FROM ${table} WHERE id > 90`);
        await admin.query(`INSERT INTO ${table} SELECT g, 7 FROM generate_series(101, 150) g`);
        const expected = await rows(admin, table);
        await readUntil(reader, changes, (c) => materialize(c, (r) => String(r[0])).size === expected.length && c.length >= 100 + 200 + 2 + 10 + 50, 60_000);
        await readFor(reader, changes, 300);
        expectTable(materialize(changes, (r) => String(r[0])), expected);
        expect(warnings.length).toBeGreaterThan(0);
        if (mode === 'fast') expect(warnings.some((w) => w.includes('the server is shutting down'))).toBe(true);
        expect(warnings[0]).toMatch(
          new RegExp(`^postgres-cdc source '${table}': could not stream changes of slot '${table}' from ${cluster.url.replace(/[/.]/g, '\\$&')} \\(.+\\); retrying in \\d+ ms \\(attempt 1 of 20\\)$`),
        );
      } finally {
        await reader.close();
        await dropSlots(admin, 'postgres');
        await admin.end();
      }
    });
  }

  it('fails the job, naming the server, once the retries are used up', async () => {
    const admin = await connect();
    await admin.query('CREATE TABLE gone (id int PRIMARY KEY, v int)');
    await admin.query('ALTER TABLE gone REPLICA IDENTITY FULL');
    const reader = cdcReader(cluster.url, 'gone', schema, ['id'], { 'slot.name': 'gone', 'connect.max-retries': '2' });
    const warnings: string[] = [];
    await reader.open({ subtask: 0, parallelism: 1, warn: (m) => warnings.push(m) });
    await readUntil(reader, [], () => reader.checkpointable());
    await admin.end();
    await stopWhileRunning('fast');
    try {
      const failure = await readUntil(reader, [], () => false, 20_000).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((failure as Error).message).toMatch(new RegExp(`^postgres-cdc source 'gone' could not stream changes of slot 'gone' from .* after 2 retries: `));
      expect(warnings).toHaveLength(2);
    } finally {
      cluster.start();
      await reader.close();
      const again = await connect();
      await dropSlots(again, 'postgres');
      await again.end();
    }
  });
});
