/**
 * Random changes of an `items` table (id INT primary key first) played as SQL statements, with a
 * plain model of the rows they leave: the shared driver of the engine's property tests. Inserts
 * get increasing ids; an update or delete picks an existing row (`pick` modulo their number) and
 * is skipped while there is none. How a row is written and how an update changes it are the
 * test's own.
 */

/** One random change: insert rows, update one (with the test's own fields), delete one. */
export type ItemOp<Fields, Update> =
  | { readonly kind: 'insert'; readonly rows: readonly Fields[] }
  | ({ readonly kind: 'update'; readonly pick: number } & Update)
  | { readonly kind: 'delete'; readonly pick: number };

/** How a test writes its rows. */
export interface ItemRendering<Fields, Update> {
  /** The VALUES tuple of a row after its id: `1, 'a'`. */
  values(item: Fields & { readonly id: number }): string;
  /** The row after `update`, and the statement that makes the change. */
  update(item: Fields & { readonly id: number }, update: Update): { readonly item: Fields & { readonly id: number }; readonly sql: string };
}

/** Plays the ops as statements, returning them and the rows they leave. */
export function playItemOps<Fields extends object, Update>(
  ops: readonly ItemOp<Fields, Update>[],
  rendering: ItemRendering<Fields, Update>,
): { sql: string[]; items: (Fields & { readonly id: number })[] } {
  const items: (Fields & { readonly id: number })[] = [];
  const sql: string[] = [];
  let id = 0;
  for (const op of ops) {
    if (op.kind === 'insert') {
      const added = op.rows.map((r) => ({ id: ++id, ...r }));
      items.push(...added);
      sql.push(`INSERT INTO items VALUES ${added.map((r) => `(${r.id}, ${rendering.values(r)})`).join(', ')}`);
    } else if (items.length === 0) {
      continue;
    } else if (op.kind === 'update') {
      const index = op.pick % items.length;
      const changed = rendering.update(items[index]!, op);
      items[index] = changed.item;
      sql.push(changed.sql);
    } else {
      const [removed] = items.splice(op.pick % items.length, 1);
      sql.push(`DELETE FROM items WHERE id = ${removed!.id}`);
    }
  }
  return { sql, items };
}
