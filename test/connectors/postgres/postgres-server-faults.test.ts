/**
 * The postgres sink against a server of its own (started for this file, restarted and crashed at
 * will, with only two prepared-transaction slots): prepared transactions survive a restart and a
 * crash and are committed by recovery; a PREPARE that fails fails the checkpoint, loudly.
 */
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { PostgresSinkWriter, type PostgresTransactionData } from '../../../src/connectors/postgres/postgres-sink-writer.js';
import { TransactionSession } from '../../../src/connectors/postgres/transaction-session.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

let cluster: PostgresCluster;
let admin: pg.Client;
const writers: PostgresSinkWriter[] = [];

const schema: Schema = [
  { name: 'id', type: SqlTypes.bigint(false) },
  { name: 'v', type: SqlTypes.string() },
];

beforeAll(async () => {
  cluster = await startPostgresCluster({ max_prepared_transactions: '2' });
  admin = await connectAdmin();
});

afterEach(async () => {
  await Promise.allSettled(writers.splice(0).map((writer) => writer.close()));
  for (const gid of await prepared()) await admin.query(`ROLLBACK PREPARED '${gid}'`);
});

afterAll(async () => {
  await admin?.end().catch(() => undefined);
  cluster?.destroy();
});

async function connectAdmin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function openWriter(table: string, setup: { restored?: boolean; warnings?: string[]; parallelism?: number } = {}): Promise<PostgresSinkWriter> {
  const writer = new PostgresSinkWriter({ kind: 'sink', table, connector: 'postgres', options: { url: cluster.url }, schema, primaryKey: ['id'] }, {});
  if (setup.restored) writer.initializeState();
  writers.push(writer);
  await writer.open({ subtask: 0, parallelism: setup.parallelism ?? 1, warn: (m) => setup.warnings?.push(m) });
  return writer;
}

const inserts = (...ids: number[]): ChangeBatch => ChangeBatch.of(ids.map((id) => [RowKind.INSERT, [id, `v${id}`]] as const));

async function prepared(): Promise<string[]> {
  return (await admin.query<{ gid: string }>('SELECT gid FROM pg_prepared_xacts ORDER BY gid')).rows.map((r) => r.gid);
}

async function ids(table: string): Promise<number[]> {
  return (await admin.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => Number(r.id));
}

describe('server restarts', () => {
  for (const mode of ['fast', 'immediate'] as const) {
    it(`keeps a prepared transaction through a ${mode === 'fast' ? 'restart' : 'crash'}, and recovery commits it`, async () => {
      const table = `survives_${mode}`;
      const crashed = await openWriter(table);
      await crashed.write(inserts(1, 2, 3));
      const transaction = await crashed.prepareCommit(1);
      await crashed.write(inserts(4));
      await crashed.prepareCommit(2);

      await admin.end();
      cluster.stop(mode);
      cluster.start();
      admin = await connectAdmin();
      await crashed.close();

      expect(await prepared()).toHaveLength(2);
      expect(await ids(table)).toEqual([]);
      const warnings: string[] = [];
      const restored = await openWriter(table, { restored: true, warnings });
      await restored.recover([transaction], 1);
      expect(await ids(table)).toEqual([1, 2, 3]);
      expect(await prepared()).toEqual([]);
      expect(warnings).toEqual([expect.stringContaining(`postgres sink '${table}': rolled back 1 prepared transaction(s) of checkpoints after the restored checkpoint 1:`)]);
    });
  }
});

describe('a PREPARE that fails', () => {
  it('fails the checkpoint naming the sink, the gid and the server error, and loses nothing that was committed', async () => {
    const warnings: string[] = [];
    const first = await openWriter('slots_a', { warnings, parallelism: 2 });
    expect(warnings).toEqual([
      "postgres sink 'slots_a': the server at " + cluster.url + ' has max_prepared_transactions = 2; 2 subtasks may hold 4 prepared transactions at once',
    ]);
    await first.write(inserts(1));
    const one = await first.prepareCommit(1);
    await first.write(inserts(2));
    await first.prepareCommit(2);

    const second = await openWriter('slots_b');
    await second.write(inserts(10));
    const failure = await second.prepareCommit(1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(WeirError);
    expect((failure as WeirError).message).toMatch(
      /^postgres sink 'slots_b' could not prepare checkpoint 1 as weir1\.slots-b-[0-9a-f]{8}\.slots-b-[0-9a-f]{8}\.0\.1\.[0-9a-f]{12} in public\.slots_b: maximum number of prepared transactions reached \(SQLSTATE 53200\)$/,
    );
    await expect(second.prepareCommit(2)).rejects.toBe(failure);
    await second.close();
    expect(await ids('slots_b')).toEqual([]);

    await first.commit([one]);
    expect(await ids('slots_a')).toEqual([1]);
    expect((one.data as PostgresTransactionData).gid).not.toBeNull();
  });

  it('refuses a PREPARE the server answers with ROLLBACK (no transaction was open: its writes were autocommitted)', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
    try {
      const session = new TransactionSession(pool, "postgres sink 'tag'");
      await session.begin();
      // The transaction ends behind the session's back, as an autocommitted write would leave it.
      await session.run(CompiledQuery.raw('COMMIT'));
      const statement = { compile: () => CompiledQuery.raw("PREPARE TRANSACTION 'weir1.j.s.0.1.e'") };
      await expect(session.prepare('weir1.j.s.0.1.e', statement)).rejects.toThrow(
        new WeirError(
          'CONNECTOR_ERROR',
          "postgres sink 'tag': PREPARE TRANSACTION 'weir1.j.s.0.1.e' answered ROLLBACK instead of PREPARE: the transaction was not prepared, so its rows were committed without two-phase commit or lost",
        ),
      );
      expect(session.inTransaction).toBe(false);
      expect(pool.idleCount, 'the session gave its client back').toBe(1);
    } finally {
      await pool.end();
    }
    expect(await prepared()).toEqual([]);
  });
});
