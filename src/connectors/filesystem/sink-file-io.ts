/**
 * The file-system calls of the filesystem sink, each turning its failure into a CONNECTOR_ERROR
 * that names the table, the action and the file, plus the directory fsyncs that make renames and
 * new files durable.
 */
import { access, open } from 'node:fs/promises';
import { join } from 'node:path';
import { WeirError } from '../../common/errors.js';

/** File I/O of one sink table rooted at its `'path'`; files are named relative to it. */
export class SinkFileIo {
  constructor(
    readonly table: string,
    readonly root: string,
  ) {}

  /** The absolute path of `relative` (`''` is the root). */
  path(relative: string): string {
    return relative === '' ? this.root : join(this.root, relative);
  }

  /** Runs one file-system call on `file` (relative), turning its failure into a CONNECTOR_ERROR naming the table and file. */
  async run<T>(action: string, file: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.error(action, file, error);
    }
  }

  /** The CONNECTOR_ERROR for a failed `action` on `file` (relative). */
  error(action: string, file: string, error: unknown): WeirError {
    const reason = error instanceof Error ? error.message : String(error);
    const where = file === '' ? this.root : `${file} in ${this.root}`;
    return new WeirError('CONNECTOR_ERROR', `filesystem sink '${this.table}' could not ${action} ${where}: ${reason}`, { cause: error });
  }

  /** Fsyncs the directory `relative` so that entries created or renamed in it survive a crash (a no-op on Windows). */
  async syncDirectory(relative: string): Promise<void> {
    if (process.platform === 'win32') return;
    const directory = await this.run('open the directory', relative, () => open(this.path(relative), 'r'));
    try {
      await this.run('fsync the directory', relative, () => directory.sync());
    } finally {
      await directory.close();
    }
  }

  /** True when `relative` exists. */
  exists(relative: string): Promise<boolean> {
    return this.run('look for', relative, async () => {
      try {
        await access(this.path(relative));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    });
  }
}
