/** Passwords in URLs never reach what weir prints. */
import { describe, expect, it } from 'vitest';
import { renderError, WeirError } from '../../src/common/errors.js';
import { maskSecrets } from '../../src/common/secrets.js';

describe('maskSecrets', () => {
  it('masks the password of every URL and keeps the rest', () => {
    expect(maskSecrets("'url' = 'postgres://app:s3cr%40t@db.example:5432/shop', 'x' = 'postgres://u@h/d'")).toBe(
      "'url' = 'postgres://app:***@db.example:5432/shop', 'x' = 'postgres://u@h/d'",
    );
    expect(maskSecrets('nats://user:pw@127.0.0.1:4222 and mysql://a:b@c')).toBe('nats://user:***@127.0.0.1:4222 and mysql://a:***@c');
  });

  it('applies to rendered errors', () => {
    const error = new WeirError('CONNECTOR_ERROR', 'cannot connect to postgres://weir:hunter2@localhost:5432/app');
    expect(renderError(error)).toBe('ERROR: connector error: cannot connect to postgres://weir:***@localhost:5432/app');
    expect(renderError(new Error('postgres://a:b@h/d refused'))).toBe('ERROR: postgres://a:***@h/d refused');
  });
});
