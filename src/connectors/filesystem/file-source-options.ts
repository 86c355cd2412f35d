/**
 * The filesystem connector's options as a source reads them: `'path'` (a file or a directory),
 * the format and its options (format-options.ts), and Flink's `'source.monitor-interval'`, which
 * makes the source unbounded.
 */
import { parseDuration } from '../../common/duration.js';
import { WeirError } from '../../common/errors.js';
import { readFormatOptions, type FormatOptions } from '../formats/format-options.js';
import { localPath } from './local-path.js';

/** The source's options, parsed and checked. */
export interface FileSourceOptions {
  /** A file, or a directory whose files (recursively, hidden ones excepted) are read in name order. */
  readonly path: string;
  readonly format: FormatOptions;
  /** Milliseconds between listings of the path for new files and appended lines; absent when bounded. */
  readonly monitorIntervalMs?: number;
}

/** Reads the source's options; throws INVALID_OPTION naming the option. Accepts every format the sink writes. */
export function parseFileSourceOptions(options: ReadonlyMap<string, string>): FileSourceOptions {
  const path = options.get('path');
  if (path === undefined || path.trim() === '') throw new WeirError('INVALID_OPTION', "filesystem needs option 'path': the file or directory to read, or to write part files to");
  const format = readFormatOptions('filesystem', options);
  const local = localPath(path);
  const interval = options.get('source.monitor-interval');
  if (interval === undefined) return { path: local, format };
  const monitorIntervalMs = parseDuration(interval, 'source.monitor-interval');
  if (monitorIntervalMs <= 0) throw new WeirError('INVALID_OPTION', `filesystem option 'source.monitor-interval' must be a positive duration such as '1 s', got '${interval}'`);
  return { path: local, format, monitorIntervalMs };
}

/** True when the table's source ends by itself: no `'source.monitor-interval'`. */
export function isBoundedFileSource(options: ReadonlyMap<string, string>): boolean {
  return !options.has('source.monitor-interval');
}
