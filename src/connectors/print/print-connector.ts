/**
 * The `print` connector (Flink's): a sink that writes every change as a line on standard output
 * or standard error. Accepts any changelog, so it can show the -U/+U/-D of updating queries.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import { closestName, WeirError } from '../../common/errors.js';
import type { Connector } from '../api/connector.js';
import { PrintWriter } from './print-writer.js';

const KNOWN_OPTIONS = ['connector', 'print-identifier', 'standard-error', 'sink.parallelism'] as const;

/** What `'connector' = 'print'` declares. */
export const printDescriptor: ConnectorDescriptor = {
  name: 'print',
  description: 'Prints every change as a line (+I[...], -U[...], +U[...], -D[...]) on standard output.',
  options: [
    { key: 'print-identifier', description: 'A prefix of every line, to tell several print sinks apart.' },
    { key: 'standard-error', description: 'Print to standard error instead of standard output.', values: ['true', 'false'], default: 'false' },
    { key: 'sink.parallelism', description: 'Parallelism of the sink.' },
  ],
  sink: { accepts: 'all' },
  validate(options) {
    for (const key of options.keys()) {
      if ((KNOWN_OPTIONS as readonly string[]).includes(key)) continue;
      const guess = closestName(key, KNOWN_OPTIONS);
      throw new WeirError('INVALID_OPTION', `print does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
    }
    const standardError = options.get('standard-error');
    if (standardError !== undefined && !['true', 'false'].includes(standardError.trim().toLowerCase())) {
      throw new WeirError('INVALID_OPTION', `print option 'standard-error' must be 'true' or 'false', got '${standardError}'`);
    }
    const parallelism = options.get('sink.parallelism');
    if (parallelism !== undefined && !/^\s*[1-9]\d*\s*$/.test(parallelism)) {
      throw new WeirError('INVALID_OPTION', `print option 'sink.parallelism' must be a positive integer, got '${parallelism}'`);
    }
  },
};

/** The `print` connector as the engine registers it. */
export const printConnector: Connector = {
  descriptor: printDescriptor,
  sink: { createWriter: (spec) => new PrintWriter(spec) },
};
