/**
 * The HTTP endpoint Prometheus scrapes: `GET /metrics` answers the registry's text; anything else
 * is 404. Listens on 127.0.0.1 unless told otherwise; port 0 picks a free port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WeirError } from '../common/errors.js';
import type { MetricsRegistry } from './metrics-registry.js';

/** Where to listen. */
export interface MetricsEndpointOptions {
  readonly port: number;
  /** Default 127.0.0.1 (the metrics are not meant for the whole network unless asked). */
  readonly host?: string;
}

/** A running endpoint. */
export interface MetricsEndpoint {
  /** The port it listens on (the chosen one when asked for port 0). */
  readonly port: number;
  readonly host: string;
  /** `http://host:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts serving `registry` over HTTP; rejects with a WeirError when the address cannot be bound. */
export function serveMetrics(registry: MetricsRegistry, options: MetricsEndpointOptions): Promise<MetricsEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(new WeirError('INVALID_ARGUMENT', `cannot serve metrics on ${host}:${options.port}: ${error.code ?? error.message}`, { hint: 'choose another --metrics-port (0 picks a free one)' }));
    });
    server.listen(options.port, host, () => {
      server.unref();
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        port,
        host,
        url: `http://${shown}:${port}/metrics`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
