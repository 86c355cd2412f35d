/**
 * A changelog applied to a table of displayed rows (the `table` result mode): `+I` appends,
 * `-U`/`-D` remove one equal row, and a `+U` right after a `-U` takes the place of the row it
 * replaces, so that an updated row stays where it was. Rows are compared by their cell text.
 */
import type { Change } from '../engine/engine.js';

/** The current rows of a query, in a stable order. */
export class MaterializedRows {
  /** Row slots; a removed row leaves a hole until the slots are compacted. */
  private slots: (readonly string[] | undefined)[] = [];
  /** The slots holding each row text. */
  private readonly index = new Map<string, number[]>();
  private vacated: number | undefined;
  private holes = 0;
  /** Changes applied so far. */
  changes = 0;

  /** Applies one change; a retraction of a row that is not there is ignored. */
  apply(op: Change['op'], cells: readonly string[]): void {
    this.changes++;
    const key = cells.join('\u0000');
    if (op === '-U' || op === '-D') {
      const slots = this.index.get(key);
      const slot = slots?.pop();
      if (slot === undefined) return;
      if (slots!.length === 0) this.index.delete(key);
      this.slots[slot] = undefined;
      this.holes++;
      this.vacated = op === '-U' ? slot : undefined;
      return;
    }
    let slot = this.slots.length;
    if (op === '+U' && this.vacated !== undefined) {
      slot = this.vacated;
      this.holes--;
    }
    this.vacated = undefined;
    this.slots[slot] = cells;
    const slots = this.index.get(key);
    if (slots === undefined) this.index.set(key, [slot]);
    else slots.push(slot);
    if (this.holes > 1024 && this.holes > this.slots.length / 2) this.compact();
  }

  /** How many rows there are. */
  get size(): number {
    return this.slots.length - this.holes;
  }

  /** The rows in order. */
  rows(): (readonly string[])[] {
    return this.slots.filter((r): r is readonly string[] => r !== undefined);
  }

  private compact(): void {
    const rows = this.rows();
    this.slots = [];
    this.index.clear();
    this.holes = 0;
    this.vacated = undefined;
    for (const row of rows) this.apply('+I', row);
    this.changes -= rows.length;
  }
}
