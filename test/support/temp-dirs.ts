/**
 * Temporary folders a test file creates and removes again, and the committed text of a
 * filesystem sink's folder.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folders made under the system's temporary folder, named `<prefix>XXXXXX`, until {@link TempDirs.removeAll}. */
export class TempDirs {
  private readonly dirs: string[] = [];

  constructor(private readonly prefix: string) {}

  /** A new empty folder. */
  make(): string {
    const dir = mkdtempSync(join(tmpdir(), this.prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** Removes every folder made so far (and what it holds). */
  removeAll(): void {
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of the committed part files of a filesystem sink's folder (in-progress files are hidden, their names start with a dot). */
export function committedText(dir: string): string {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('');
}
