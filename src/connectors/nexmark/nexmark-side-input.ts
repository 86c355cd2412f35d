/**
 * The side input of Nexmark q13, as the Nexmark runner generates it before the query runs
 * (`SideInputGenerator --num 10000 --path $FLINK_HOME/data/side_input.txt`): one CSV line
 * `key,value` per key in [0, rows), the value being the key's decimal text, so that any id can be
 * enriched by looking up `id % rows`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** How many rows the Nexmark runner writes. */
export const NEXMARK_SIDE_INPUT_ROWS = 10_000;

/** The side input's text: `0,0\n1,1\n...`. */
export function nexmarkSideInput(rows: number = NEXMARK_SIDE_INPUT_ROWS): string {
  let text = '';
  for (let i = 0; i < rows; i++) text += `${i},${i}\n`;
  return text;
}

/** Writes the side input to `path` (creating its directory), as the runner does for q13. */
export async function writeNexmarkSideInput(path: string, rows: number = NEXMARK_SIDE_INPUT_ROWS): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, nexmarkSideInput(rows));
}
