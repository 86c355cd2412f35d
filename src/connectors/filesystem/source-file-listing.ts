/**
 * The files a filesystem source reads under its `'path'`: the path itself when it is a file, else
 * every regular file below the directory (symbolic links to files included, to directories not),
 * recursively, in name order of their relative paths
 * (`/`-separated), leaving out hidden entries (names starting with `.` or `_`, as Flink's file
 * source does), which include the filesystem sink's in-progress and pending part files.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** One file to read. */
export interface SourceFile {
  /** The key of the file in offsets: its path relative to the directory, or its base name when `'path'` is the file. */
  readonly name: string;
  /** The path to open and to name in messages. */
  readonly path: string;
  /** Its size in bytes when listed. */
  readonly size: number;
}

/** True for names the listing leaves out. */
function isHiddenName(name: string): boolean {
  return name.startsWith('.') || name.startsWith('_');
}

/** The files under `path`, sorted by {@link SourceFile.name}; rejects with the file system's error when `path` cannot be read. */
export async function listSourceFiles(path: string): Promise<SourceFile[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [{ name: basename(path), path, size: info.size }];
  const files: SourceFile[] = [];
  await collect(path, '', files);
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function collect(root: string, relative: string, files: SourceFile[]): Promise<void> {
  const dir = relative === '' ? root : join(root, relative);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (isHiddenName(entry.name)) continue;
    const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      await collect(root, name, files);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      const info = await stat(join(root, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (info?.isFile() === true) files.push({ name, path: join(root, name), size: info.size });
    }
  }
}
