/**
 * `weir doctor` against the suite's PostgreSQL cluster: it lists a prepared transaction of weir and
 * a replication slot left behind (by their names; other suites may leave theirs meanwhile), rolls
 * back the one transaction named and drops the one slot named, refuses a gid that is not weir's
 * or does not exist, and never prints the password of the URL. An exactly-once sink starting a job
 * warns about weir's prepared transactions older than 'sink.prepared-transaction.warn-age'.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDoctor } from '../../src/cli/doctor-command.js';
import { createEngine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery, rollbackPreparedIn } from '../support/pg-query.js';
import pg from 'pg';

let url: string;
const gid = `weir1.doctor-test.leftover.0.7.${Date.now().toString(16)}`;
const slot = `weir_cdc_doctor_${process.pid}`;

/** Prepares a transaction with a weir gid, as a sink whose job died after pre-committing leaves it. */
async function prepareLeftover(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS t (v int)');
    await client.query('BEGIN');
    await client.query('INSERT INTO t VALUES (1)');
    await client.query(`PREPARE TRANSACTION '${gid}'`);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  url = await freshDatabase('weir_doctor');
  // The slot first: creating one waits for every transaction in progress, a prepared one too.
  await pgQuery(url, `SELECT pg_create_logical_replication_slot('${slot}', 'pgoutput')`);
  await prepareLeftover();
});

afterAll(async () => {
  await rollbackPreparedIn(url);
  await pgQuery(url, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
});

async function doctor(options: Parameters<typeof runDoctor>[0]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    const code = await runDoctor(options, (text) => void (out += text));
    return { code, out, err };
  } finally {
    stderr.mockRestore();
  }
}

describe('weir doctor', () => {
  it('lists a leftover prepared transaction and replication slot, then finishes exactly the ones named', async () => {
    const listed = await doctor({ verbose: false, url });
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`${gid.replace(/\./g, '\\.')}\\s+weir_doctor_[0-9a-f]+\\s+\\d+ m?s\\s+7`));
    expect(listed.out).toMatch(new RegExp(`${slot}\\s+weir_doctor_[0-9a-f]+\\s+no\\s`));

    const fixed = await doctor({ verbose: false, url, rollback: [gid], dropSlot: [slot] });
    expect(fixed.err).toBe('');
    expect(fixed.out).toContain(`Done: rolled back ${gid}`);
    expect(fixed.out).toContain(`Done: dropped replication slot ${slot}`);
    expect(fixed.out).not.toContain(`\n  ${gid}`);
    expect(await pgQuery(url, `SELECT gid FROM pg_prepared_xacts WHERE gid = '${gid}'`)).toEqual([]);
    expect(await pgQuery(url, `SELECT slot_name FROM pg_replication_slots WHERE slot_name = '${slot}'`)).toEqual([]);
    // The rolled-back transaction's row never became visible.
    expect(await pgQuery(url, 'SELECT count(*)::int AS n FROM t')).toEqual([{ n: 0 }]);
  });

  it('refuses a gid that is no prepared transaction of weir, naming it, and masks the password of the URL', async () => {
    const withPassword = new URL(url);
    withPassword.password = 's3cret';
    const refused = await doctor({ verbose: false, url: withPassword.toString(), rollback: ['weir1.nobody.none.0.1.abc'] });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("no prepared transaction of weir has gid 'weir1.nobody.none.0.1.abc'");
    expect(refused.err).not.toContain('s3cret');
  });

  it('an exactly-once sink warns at the start of its job about old prepared transactions of weir', async () => {
    await prepareLeftover();
    await new Promise((r) => setTimeout(r, 300));
    const warnings: string[] = [];
    const engine = createEngine({ onWarning: (m) => warnings.push(m) });
    try {
      await engine.execute(`SET 'state.checkpoints.dir' = '${mkdtempSync(join(tmpdir(), 'weir-doctor-'))}';
        CREATE TABLE out_t (v INT) WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'out_t', 'sink.prepared-transaction.warn-age' = '200 ms');
        INSERT INTO out_t VALUES (1);`);
      for (const job of engine.session.jobs()) await job.result();
    } finally {
      await engine.close();
    }
    expect(warnings.join('\n')).toMatch(/postgres sink 'out_t': \d+ prepared transaction\(s\) of weir in the cluster at .* are older than 200 ms: .*; they hold locks and block VACUUM until their job recovers: 'weir doctor' lists them and rolls them back/);
  });
});
