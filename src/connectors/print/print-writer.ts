/**
 * The print sink's writer: one line per change, as Flink's print connector writes them
 * (`+I[1, abc]`, `-U[...]`, `+U[...]`, `-D[...]`), with NULL as `null` and every other value in
 * its CAST-to-STRING text. A batch becomes one string and one `write`; the stream's backpressure
 * is passed on to the runtime.
 */
import { WeirError } from '../../common/errors.js';
import { ROW_KIND_SHORT } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { SqlType } from '../../common/sql-type.js';
import { formatValue } from '../../common/value-format.js';
import type { SinkSpec } from '../../dataflow/job-graph.js';
import type { SinkContext, SinkWriter } from '../../runtime/sink-writer.js';

/** The part of a Node writable stream the writer uses (process.stdout, process.stderr, a file or test stream). */
export interface PrintStream {
  write(chunk: string): boolean;
  readonly writableNeedDrain: boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Writes one subtask's share of a print table. The line prefix follows Flink: `id> ` with an
 * identifier, `id:n> ` or `n> ` (n = subtask + 1) when the sink runs with parallelism above 1.
 */
export class PrintWriter implements SinkWriter {
  readonly #schema: readonly SqlType[];
  readonly #identifier: string;
  readonly #stream: PrintStream;
  #prefix = '';
  #timeZone = 'UTC';

  /** `stream` defaults to process.stdout, or process.stderr when `'standard-error' = 'true'`. */
  constructor(spec: SinkSpec, stream?: PrintStream) {
    this.#schema = spec.schema.map((field) => field.type);
    this.#identifier = spec.options['print-identifier'] ?? '';
    this.#stream = stream ?? (spec.options['standard-error']?.trim().toLowerCase() === 'true' ? process.stderr : process.stdout);
  }

  async open(context: SinkContext): Promise<void> {
    this.#prefix = linePrefix(this.#identifier, context.subtask, context.parallelism);
    this.#timeZone = context.timeZone ?? 'UTC';
  }

  /** Writes the batch's lines at once; returns a promise that resolves on 'drain' when the stream is full. */
  write(batch: ChangeBatch): void | Promise<void> {
    const { kinds, rows } = batch;
    if (rows.length === 0) return;
    const types = this.#schema;
    let text = '';
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      let line = '';
      for (let c = 0; c < types.length; c++) {
        const value = row[c];
        if (c > 0) line += ', ';
        line += value === null || value === undefined ? 'null' : formatValue(value, types[c]!, this.#timeZone);
      }
      text += `${this.#prefix}${ROW_KIND_SHORT[kinds[i]!]}[${line}]\n`;
    }
    if (!this.#stream.write(text)) return drained(this.#stream);
  }

  /** Resolves once everything written has left the stream's buffer. */
  async flush(): Promise<void> {
    if (this.#stream.writableNeedDrain) await drained(this.#stream);
  }

  /** Flushes; never closes the stream, which the writer does not own. */
  async close(): Promise<void> {
    await this.flush();
  }
}

/** Flink's prefix of each printed line. */
export function linePrefix(identifier: string, subtask: number, parallelism: number): string {
  if (parallelism > 1) return identifier === '' ? `${subtask + 1}> ` : `${identifier}:${subtask + 1}> `;
  return identifier === '' ? '' : `${identifier}> `;
}

function drained(stream: PrintStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', onError);
    };
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onClose = (): void => {
      cleanup();
      reject(new WeirError('CONNECTOR_ERROR', 'print sink: the output stream closed before it drained'));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new WeirError('CONNECTOR_ERROR', `print sink: writing failed: ${error.message}`, { cause: error }));
    };
    stream.once('drain', onDrain);
    stream.once('close', onClose);
    stream.once('error', onError);
  });
}
