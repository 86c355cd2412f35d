/**
 * The connection of a NATS source: connects (failing at once with what and where when the server
 * cannot be reached), then reconnects for as long as the source lives, with exponential backoff,
 * reporting every loss and recovery through the source's `warn` with the URL masked.
 */
import { connect, Events, NatsError, type NatsConnection } from 'nats';
import { WeirError } from '../../common/errors.js';
import { scrubCredentials, type NatsServers } from './nats-servers.js';

/** The first delay before reconnecting, and the most it grows to. */
const RECONNECT_BASE_MS = 100;
const RECONNECT_MAX_MS = 2_000;
/** How long the first connection attempt may take. */
const CONNECT_TIMEOUT_MS = 5_000;

/** A connection with the server's name for messages. */
export interface NatsLink {
  readonly connection: NatsConnection;
  /** The servers as the user wrote them, masked. */
  readonly display: string;
  /** An error's text for users, credentials removed. */
  describe(error: unknown): string;
  /** Reports a problem that does not stop reading (the source's warning channel). */
  warn(message: string): void;
  close(): Promise<void>;
}

/** Connects to `servers` for table `table`; throws CONNECTOR_ERROR naming the server when it cannot. */
export async function connectNats(servers: NatsServers, table: string, warn: (message: string) => void): Promise<NatsLink> {
  const describe = (error: unknown): string => scrubCredentials(reasonOf(error), servers);
  let attempt = 0;
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: [...servers.servers],
      name: `weir ${table}`,
      ...(servers.user === undefined ? {} : { user: servers.user, pass: servers.pass }),
      ...(servers.token === undefined ? {} : { token: servers.token }),
      timeout: CONNECT_TIMEOUT_MS,
      maxReconnectAttempts: -1,
      reconnectDelayHandler: () => {
        const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** attempt++);
        return ceiling / 2 + Math.random() * (ceiling / 2);
      },
    });
  } catch (error) {
    throw new WeirError('CONNECTOR_ERROR', `nats table '${table}' cannot connect to ${servers.display}: ${describe(error)}`, { cause: error });
  }
  void watchStatus(connection, servers.display, table, warn, () => (attempt = 0));
  return {
    connection,
    display: servers.display,
    describe,
    warn,
    close: async () => {
      if (!connection.isClosed()) await connection.close();
    },
  };
}

/** Reports disconnects, reconnects and errors the server sends until the connection closes; `reconnected` resets the backoff. */
async function watchStatus(connection: NatsConnection, display: string, table: string, warn: (message: string) => void, reconnected: () => void): Promise<void> {
  for await (const status of connection.status()) {
    if (status.type === Events.Disconnect) {
      warn(`nats table '${table}' lost its connection to ${display}; reconnecting`);
    } else if (status.type === Events.Reconnect) {
      reconnected();
      warn(`nats table '${table}' reconnected to ${display}`);
    } else if (status.type === Events.Error) {
      warn(`nats table '${table}': ${display} reported an error: ${String(status.data)}`);
    }
  }
}

/** A short reason: NATS error codes (`CONNECTION_REFUSED`) become words; JetStream errors keep their description. */
function reasonOf(error: unknown): string {
  if (error instanceof NatsError) {
    const api = error.api_error;
    if (api !== undefined) return api.description;
    if (error.message === error.code) return error.code.toLowerCase().replace(/_/g, ' ');
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
