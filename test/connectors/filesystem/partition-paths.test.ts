/**
 * Partition directories of the filesystem sink: Flink's `<column>=<value>` levels with `%XX`
 * escapes and the default name for NULL and blank values, right for every row of a stream whose
 * partition values repeat in runs, change one column at a time, and come back.
 */
import { describe, expect, it } from 'vitest';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { partitionLayout, partitionValues } from '../../../src/connectors/filesystem/partition-paths.js';

const schema = [
  { name: 'id', type: SqlTypes.bigint() },
  { name: 'dt', type: SqlTypes.string() },
  { name: 'hm', type: SqlTypes.string() },
];

describe('partition directories', () => {
  it('names each row its directory, escaped, whatever came before it', () => {
    const layout = partitionLayout(schema, ['dt', 'hm']);
    const rows: [string | null, string | null][] = [
      ['2024-01-01', '10:05'],
      ['2024-01-01', '10:05'],
      ['2024-01-01', '10:06'],
      ['2024-01-02', '10:06'],
      ['2024-01-01', '10:05'],
      [null, '10:05'],
      [null, '10:05'],
      [' ', 'a/b=c'],
      ['2024-01-01', null],
    ];
    const directories = rows.map(([dt, hm], i) => layout.directoryOf([i, dt, hm]));
    expect(directories).toEqual([
      'dt=2024-01-01/hm=10%3A05',
      'dt=2024-01-01/hm=10%3A05',
      'dt=2024-01-01/hm=10%3A06',
      'dt=2024-01-02/hm=10%3A06',
      'dt=2024-01-01/hm=10%3A05',
      'dt=__DEFAULT_PARTITION__/hm=10%3A05',
      'dt=__DEFAULT_PARTITION__/hm=10%3A05',
      'dt=__DEFAULT_PARTITION__/hm=a%2Fb%3Dc',
      'dt=2024-01-01/hm=__DEFAULT_PARTITION__',
    ]);
    expect(partitionValues(directories[7]!)).toEqual(['__DEFAULT_PARTITION__', 'a/b=c']);
  });
});
