import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import {
  DEFAULT_MAX_BUFFERED_ROWS,
  maskUrl,
  parsePostgresSinkOptions,
  parseTableName,
  resolveConnection,
  scrubPassword,
} from '../../../src/connectors/postgres/postgres-options.js';

const parse = (options: Record<string, string>) => parsePostgresSinkOptions(new Map(Object.entries({ connector: 'postgres', ...options })));

describe('postgres sink options', () => {
  it('has defaults for everything', () => {
    expect(parse({})).toEqual({
      url: undefined,
      tableName: undefined,
      semantic: 'exactly-once',
      maxBufferedRows: DEFAULT_MAX_BUFFERED_ROWS,
      job: undefined,
      sink: undefined,
      transactionGroup: 'default',
      preparedWarnAgeMs: 3_600_000,
    });
  });

  it('reads every option, and the engine-set job and sink names', () => {
    expect(
      parse({
        url: 'postgresql://u@h/db',
        'table-name': 'sales.daily',
        'sink.semantic': 'at-least-once',
        'sink.buffer-flush.max-rows': '1000',
        'sink.parallelism': '2',
        'weir.job': 'j',
        'weir.sink': 's',
        'sink.transaction-group': 'views',
        'sink.prepared-transaction.warn-age': '10 min',
      }),
    ).toEqual({
      url: 'postgresql://u@h/db',
      tableName: { schema: 'sales', table: 'daily' },
      semantic: 'at-least-once',
      maxBufferedRows: 1000,
      job: 'j',
      sink: 's',
      transactionGroup: 'views',
      preparedWarnAgeMs: 600_000,
    });
    expect(parse({ 'sink.transaction-group': 'none' }).transactionGroup).toBeUndefined();
  });

  it('refuses unknown options with a suggestion, and bad values naming the option', () => {
    expect(() => parse({ 'sink.semantics': 'exactly-once' })).toThrow(new WeirError('INVALID_OPTION', "postgres does not support option 'sink.semantics'; did you mean 'sink.semantic'?"));
    expect(() => parse({ password: 'x' })).toThrow("postgres does not support option 'password'");
    expect(() => parse({ 'sink.prepared-transaction.warn-age': 'an hour' })).toThrow("option 'sink.prepared-transaction.warn-age' must be a duration such as '500 ms' or '1 s', got 'an hour'");
    expect(() => parse({ 'sink.semantic': 'exactly_once' })).toThrow("postgres option 'sink.semantic' must be 'exactly-once' or 'at-least-once', got 'exactly_once'");
    expect(() => parse({ 'sink.buffer-flush.max-rows': '0' })).toThrow("postgres option 'sink.buffer-flush.max-rows' must be a positive integer, got '0'");
    expect(() => parse({ 'sink.parallelism': 'two' })).toThrow("postgres option 'sink.parallelism' must be a positive integer, got 'two'");
    expect(() => parse({ 'sink.transaction-group': 'a b' })).toThrow(
      "postgres option 'sink.transaction-group' must be a name of letters, digits, '_' and '-' (at most 32), or 'none'; got 'a b'",
    );
  });

  it('refuses a URL that is not a postgres URL, without showing its password', () => {
    expect(() => parse({ url: 'mysql://u:secret@h/db' })).toThrow("postgres option 'url' must be a URL such as postgres://user@host:5432/database, got 'mysql://u:***@h/db'");
    const error = (() => {
      try {
        parse({ url: 'postgres://u:sec ret@[bad/db' });
      } catch (e) {
        return e as Error;
      }
      throw new Error('no error');
    })();
    expect(error.message).toBe("postgres option 'url' must be a URL such as postgres://user@host:5432/database, got 'postgres://u:***@[bad/db'");
  });

  it('parses plain and double-quoted table names, keeping case', () => {
    expect(parseTableName('Orders')).toEqual({ schema: undefined, table: 'Orders' });
    expect(parseTableName('My Schema.My Table')).toEqual({ schema: 'My Schema', table: 'My Table' });
    expect(parseTableName('"a.b"."c""d"')).toEqual({ schema: 'a.b', table: 'c"d' });
    expect(parseTableName('s."t.u"')).toEqual({ schema: 's', table: 't.u' });
    for (const bad of ['', 'a.b.c', '.t', 's.', '"open', 'a"b', '"a"b']) {
      expect(() => parseTableName(bad)).toThrow(`postgres option 'table-name' must be 'table' or 'schema.table' (double-quote a name that contains a dot or a quote), got '${bad}'`);
    }
    expect(() => parseTableName('x'.repeat(64))).toThrow(`postgres option 'table-name': '${'x'.repeat(64)}' is longer than PostgreSQL's limit of 63 bytes for a name`);
  });
});

describe('password masking', () => {
  it('masks the password of a URL, in the user part and in a query parameter', () => {
    expect(maskUrl('postgres://alice:s3cr%40t@db.example.com:5433/app?sslmode=require')).toBe('postgres://alice:***@db.example.com:5433/app?sslmode=require');
    expect(maskUrl('postgres://alice@db/app?password=x&sslmode=disable')).toBe('postgres://alice@db/app?password=***&sslmode=disable');
    expect(maskUrl('postgres://alice@db/app')).toBe('postgres://alice@db/app');
    expect(maskUrl('postgres://bob:pa:ss@[::1/app?PASSWORD=y')).toBe('postgres://bob:***@[::1/app?PASSWORD=***');
  });

  it('scrubs a password out of any message', () => {
    expect(scrubPassword('auth for hunter2 failed (hunter2)', 'hunter2')).toBe('auth for *** failed (***)');
    expect(scrubPassword('message', undefined)).toBe('message');
  });
});

describe('server resolution', () => {
  it('prefers the url option, then DATABASE_URL', () => {
    const env = { DATABASE_URL: 'postgres://env:pw1@envhost/envdb', PGHOST: 'ignored' };
    expect(resolveConnection('t', 'postgres://opt:pw2@opthost/optdb', env)).toEqual({
      config: { connectionString: 'postgres://opt:pw2@opthost/optdb' },
      display: 'postgres://opt:***@opthost/optdb',
      password: 'pw2',
    });
    expect(resolveConnection('t', undefined, env)).toEqual({
      config: { connectionString: 'postgres://env:pw1@envhost/envdb' },
      display: 'postgres://env:***@envhost/envdb',
      password: 'pw1',
    });
    expect(() => resolveConnection('t', undefined, { DATABASE_URL: 'not a url' })).toThrow(
      "postgres DATABASE_URL must be a URL such as postgres://user@host:5432/database, got 'not a url'",
    );
  });

  it('falls back to the libpq variables with libpq defaults', () => {
    expect(resolveConnection('t', undefined, { PGHOST: 'pg.internal', PGUSER: 'weir', PGPASSWORD: 'pw3', PGDATABASE: 'metrics' })).toEqual({
      config: { host: 'pg.internal', port: 5432, user: 'weir', password: 'pw3', database: 'metrics' },
      display: 'postgres://weir:***@pg.internal:5432/metrics',
      password: 'pw3',
    });
    expect(resolveConnection('t', undefined, { PGHOST: '/var/run/postgresql', PGPORT: '5433', USER: 'me' })).toEqual({
      config: { host: '/var/run/postgresql', port: 5433, user: 'me', database: 'me' },
      display: 'postgres://me@localhost:5433/me?host=%2Fvar%2Frun%2Fpostgresql',
      password: undefined,
    });
    expect(() => resolveConnection('t', undefined, { PGPORT: 'x' })).toThrow("postgres sink 't': PGPORT must be a port number, got 'x'");
  });

  it('says where a server can come from when there is none', () => {
    const error = (() => {
      try {
        resolveConnection('out', undefined, { HOME: '/root' });
      } catch (e) {
        return e as WeirError;
      }
      throw new Error('no error');
    })();
    expect(error.message).toBe("postgres sink 'out' does not know which server to write to");
    expect(error.hint).toContain('DATABASE_URL');
  });
});
