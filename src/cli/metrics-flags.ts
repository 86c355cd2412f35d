/** `--metrics-port` / `--metrics-host`: the Prometheus endpoint of `weir`, `weir run` and `weir serve`. */
import { InvalidArgumentError } from 'commander';
import type { Engine } from '../engine/engine.js';

/** The endpoint asked for on the command line. */
export interface MetricsFlags {
  readonly metricsPort?: number;
  readonly metricsHost?: string;
}

/** The help of the two options. */
export const METRICS_PORT_HELP = 'serve Prometheus metrics at http://127.0.0.1:PORT/metrics (0 picks a free port)';
export const METRICS_HOST_HELP = 'the address the metrics endpoint listens on';

/** Parses `--metrics-port`: an integer from 0 to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return port;
}

/** Starts the endpoint when a port was given, and says where it is on stderr. */
export async function startMetricsEndpoint(engine: Engine, flags: MetricsFlags): Promise<void> {
  if (flags.metricsPort === undefined) return;
  const endpoint = await engine.serveMetrics({ port: flags.metricsPort, ...(flags.metricsHost === undefined ? {} : { host: flags.metricsHost }) });
  process.stderr.write(`[INFO] Prometheus metrics at ${endpoint.url}\n`);
}
