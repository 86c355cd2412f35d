/**
 * The `url` option of a NATS table: one or more comma-separated server URLs
 * (`nats://host:4222`, `tls://host:4222`), with optional credentials in the URL as NATS writes
 * them (`nats://user:password@host`, or a token alone: `nats://token@host`). The credentials are
 * taken out of the server list handed to the client and never shown: every URL printed is masked.
 */
import { WeirError } from '../../common/errors.js';
import { maskSecrets } from '../../common/secrets.js';

/** Where a NATS source connects to, with what credentials, and how to name it in messages. */
export interface NatsServers {
  /** `host:port` URLs without credentials, as the client takes them. */
  readonly servers: readonly string[];
  readonly user?: string;
  readonly pass?: string;
  readonly token?: string;
  /** The URLs as written, with passwords and tokens replaced by `***`. */
  readonly display: string;
}

const PROTOCOLS = ['nats:', 'tls:'];

/** Parses the `url` option; throws INVALID_OPTION naming it (with the URL masked) when a part is not a NATS URL. */
export function parseNatsServers(text: string): NatsServers {
  const parts = text.split(',').map((part) => part.trim());
  const servers: string[] = [];
  let credentials: Pick<NatsServers, 'user' | 'pass' | 'token'> = {};
  for (const part of parts) {
    const url = parseUrl(part);
    if (url === undefined || !PROTOCOLS.includes(url.protocol) || url.hostname === '' || (url.pathname !== '' && url.pathname !== '/') || url.search !== '') {
      throw new WeirError('INVALID_OPTION', `nats option 'url' must be a server URL such as nats://127.0.0.1:4222 (several separated by commas), got '${maskNatsUrl(part)}'`);
    }
    if (url.username !== '') credentials = userInfo(url);
    servers.push(`${url.protocol}//${url.host}`);
  }
  return { servers, ...credentials, display: parts.map(maskNatsUrl).join(',') };
}

/** The URL with its password, or its token (a user part without a password), replaced by `***`. */
export function maskNatsUrl(text: string): string {
  const url = parseUrl(text);
  if (url === undefined || url.username === '') return maskSecrets(text);
  return `${url.protocol}//${url.password === '' ? '***' : `${url.username}:***`}@${url.host}`;
}

/** The message with every credential of `servers` replaced by `***` (for errors the client wraps around them). */
export function scrubCredentials(message: string, servers: NatsServers): string {
  let text = maskSecrets(message);
  for (const secret of [servers.pass, servers.token]) {
    if (secret !== undefined && secret.length >= 3) text = text.split(secret).join('***');
  }
  return text;
}

function userInfo(url: URL): Pick<NatsServers, 'user' | 'pass' | 'token'> {
  const user = decodeURIComponent(url.username);
  return url.password === '' ? { token: user } : { user, pass: decodeURIComponent(url.password) };
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
