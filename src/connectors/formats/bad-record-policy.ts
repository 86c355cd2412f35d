/**
 * The two {@link BadRecordPolicy}s: fail (the default, Flink's `format.fail-on-error`) throws a
 * CONNECTOR_ERROR that says which table, where and why; ignore (`*.ignore-parse-errors`) appends
 * the raw record to the table's dead-letter file `.weir/dead-letter/<table>.jsonl` (relative to
 * the working directory), one JSON object per line with `source`, `position`, `reason`, `record`
 * and `time`, counts it and reports it once through `warn`. The dead-letter line is written
 * synchronously before `reject` returns, so a record is never both dropped and unrecorded; after
 * a recovery, records replayed from the checkpoint are set aside (and reported) again.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { WeirError } from '../../common/errors.js';
import type { BadRecordPolicy, RecordDecodeError, RecordOrigin } from './record-decoder.js';

/** The folder of dead-letter files, relative to the working directory. */
export const DEAD_LETTER_DIR = join('.weir', 'dead-letter');

/** Who reads the records and what to do with bad ones. */
export interface BadRecordPolicySettings {
  /** The connector's name, as messages start: `filesystem source 'orders'`. */
  readonly connector: string;
  readonly table: string;
  /** Set bad records aside instead of failing (from `FormatOptions.ignoreParseErrors`). */
  readonly ignoreParseErrors: boolean;
  /** Reports a record set aside; usually the source's `context.warn` (it may be called before `open` has run). */
  readonly warn: (message: string) => void;
  /** The folder of the dead-letter file; {@link DEAD_LETTER_DIR} unless a test says otherwise. */
  readonly deadLetterDir?: string;
}

/** A policy whose `reject` finishes before it returns, so that a source can call it inside a synchronous poll. */
export interface SyncBadRecordPolicy extends BadRecordPolicy {
  reject(text: string, origin: RecordOrigin, error: RecordDecodeError): void;
}

/** The policy the settings ask for. */
export function createBadRecordPolicy(settings: BadRecordPolicySettings): SyncBadRecordPolicy {
  return settings.ignoreParseErrors ? new DeadLetterPolicy(settings) : new FailPolicy(settings);
}

/** The dead-letter file of a table: its name with anything but letters, digits, `_`, `-` and `.` replaced by `_`. */
export function deadLetterPath(table: string, dir: string = DEAD_LETTER_DIR): string {
  return join(dir, `${table.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`);
}

/** `filesystem source 'orders': /data/a.csv, line 7 (byte 812): column 'price': ...`. */
function describe(settings: BadRecordPolicySettings, origin: RecordOrigin, error: RecordDecodeError): string {
  return `${settings.connector} source '${settings.table}': ${origin.source}, ${origin.position}: ${error.message}`;
}

class FailPolicy implements SyncBadRecordPolicy {
  readonly rejected = 0;

  constructor(private readonly settings: BadRecordPolicySettings) {}

  reject(_text: string, origin: RecordOrigin, error: RecordDecodeError): void {
    throw new WeirError('CONNECTOR_ERROR', describe(this.settings, origin, error), {
      hint: "set 'format.ignore-parse-errors' = 'true' to set bad records aside in a dead-letter file",
      cause: error,
      permanent: true,
    });
  }
}

class DeadLetterPolicy implements SyncBadRecordPolicy {
  #rejected = 0;
  readonly #file: string;
  readonly #dir: string;
  #dirReady = false;

  constructor(private readonly settings: BadRecordPolicySettings) {
    this.#dir = settings.deadLetterDir ?? DEAD_LETTER_DIR;
    this.#file = deadLetterPath(settings.table, this.#dir);
  }

  get rejected(): number {
    return this.#rejected;
  }

  reject(text: string, origin: RecordOrigin, error: RecordDecodeError): void {
    const line = JSON.stringify({ source: origin.source, position: origin.position, reason: error.message, record: text, time: new Date().toISOString() });
    try {
      if (!this.#dirReady) mkdirSync(this.#dir, { recursive: true });
      this.#dirReady = true;
      appendFileSync(this.#file, `${line}\n`);
    } catch (cause) {
      throw new WeirError('CONNECTOR_ERROR', `${describe(this.settings, origin, error)}; and writing it to ${this.#file} failed: ${(cause as Error).message}`, { cause });
    }
    this.#rejected++;
    this.settings.warn(`${describe(this.settings, origin, error)} (set aside in ${this.#file})`);
  }
}
