/**
 * Writes the result of `INSERT INTO t ...` into a writable table: each record becomes the changes
 * that apply it to the current contents (an INSERT of an existing primary key is an update), and
 * the changes of a batch are appended to the log durably. Not transactional: a job that fails
 * midway keeps what it wrote, like an autocommitted statement.
 */
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { SinkWriter } from '../../runtime/sink-writer.js';
import type { TableContents } from './table-contents.js';
import type { TableChange } from './table-log.js';

/** The sink of one writable table. */
export class TableSinkWriter implements SinkWriter {
  constructor(private readonly contents: () => TableContents) {}

  async open(): Promise<void> {}

  write(batch: ChangeBatch): void {
    const contents = this.contents();
    const all: TableChange[] = [];
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const kind = batch.kinds[i]!;
      const changes = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER ? contents.insertion(row) : contents.retraction(row);
      contents.apply(changes);
      all.push(...changes);
    }
    contents.append(all);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
