/**
 * The shell's result modes without a terminal: tableau and changelog lines, the materialized
 * table (in-place updates, retractions), the live table redrawn in place with cursor movement
 * and cut to the screen, and the colours of a stream.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangelogView } from '../../src/cli/changelog-view.js';
import { LiveTableView, type LiveScreen } from '../../src/cli/live-table-view.js';
import { MaterializedRows } from '../../src/cli/materialized-rows.js';
import { styleFor } from '../../src/cli/terminal-style.js';
import type { TextChange } from '../../src/engine/engine.js';

const change = (op: TextChange['op'], ...cells: (string | null)[]): TextChange => ({ op, columns: ['k', 'n'], cells });

const changes: TextChange[] = [change('+I', 'a', '1'), change('+I', 'b', '1'), change('-U', 'a', '1'), change('+U', 'a', '2'), change('-D', 'b', '1')];

function lines(): { out: string[]; write: (text: string) => void } {
  const out: string[] = [];
  return { out, write: (text) => out.push(...text.split('\n')) };
}

describe('tableau and changelog modes', () => {
  it('tableau: a bordered table of changes, then the total and the time', () => {
    const { out, write } = lines();
    const view = new ChangelogView(write, true);
    changes.slice(0, 2).forEach((c) => view.show(c));
    view.finish(1234);
    expect(out).toEqual([
      '+----+--------------+--------------+',
      '| op |            k |            n |',
      '+----+--------------+--------------+',
      '| +I |            a |            1 |',
      '| +I |            b |            1 |',
      '+----+--------------+--------------+',
      'Received a total of 2 rows (1.23 seconds)',
    ]);
  });

  it('changelog: one bare line per change', () => {
    const { out, write } = lines();
    const view = new ChangelogView(write, false);
    changes.forEach((c) => view.show(c));
    view.finish(50);
    expect(out).toEqual([
      ' op             k             n',
      ' +I             a             1',
      ' +I             b             1',
      ' -U             a             1',
      ' +U             a             2',
      ' -D             b             1',
      'Received a total of 5 rows (0.05 seconds)',
    ]);
  });

  it('shows NULL as NULL', () => {
    const { out, write } = lines();
    const view = new ChangelogView(write, false);
    view.show(change('+I', 'a', null));
    expect(out[1]).toBe(' +I             a          NULL');
  });

  it('widens a column to its first value and cuts longer ones', () => {
    const { out, write } = lines();
    const view = new ChangelogView(write, false);
    view.show({ op: '+I', columns: ['s'], cells: ['fourteen chars'] });
    view.show({ op: '+I', columns: ['s'], cells: ['more than fourteen'] });
    expect(out.slice(1, 3)).toEqual([' +I  fourteen chars', ' +I  more than fou…']);
  });
});

describe('table mode', () => {
  it('keeps the current rows, an updated row in its place', () => {
    const table = new MaterializedRows();
    for (const c of changes) table.apply(c.op, c.cells.map(String));
    expect(table.rows()).toEqual([['a', '2']]);
    table.apply('+I', ['c', '1']);
    table.apply('+I', ['d', '1']);
    table.apply('-U', ['c', '1']);
    table.apply('+U', ['c', '5']);
    table.apply('-D', ['x', '9']);
    expect(table.rows()).toEqual([['a', '2'], ['c', '5'], ['d', '1']]);
    expect(table.size).toBe(3);
    expect(table.changes).toBe(10);
  });

  it('keeps duplicates and compacts many holes', () => {
    const table = new MaterializedRows();
    for (let i = 0; i < 3000; i++) table.apply('+I', [String(i % 2)]);
    for (let i = 0; i < 2990; i++) table.apply('-D', [String(i % 2)]);
    expect(table.rows()).toEqual([['0'], ['1'], ['0'], ['1'], ['0'], ['1'], ['0'], ['1'], ['0'], ['1']]);
    table.apply('+I', ['2']);
    expect(table.size).toBe(11);
  });

  describe('live', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    function screen(rows: number, columns = 40): LiveScreen & { raw: string[] } {
      const raw: string[] = [];
      return { raw, redraw: true, size: () => ({ rows, columns }), write: (text) => void raw.push(text) };
    }

    it('redraws the current rows in place and ends with the final table', () => {
      const { out, write } = lines();
      const terminal = screen(24);
      const view = new LiveTableView(write, terminal);
      changes.slice(0, 2).forEach((c) => view.show(c));
      vi.advanceTimersByTime(100);
      expect(out.slice(0, 6)).toEqual(['+---+---+', '| k | n |', '+---+---+', '| a | 1 |', '| b | 1 |', '+---+---+']);
      expect(out[6]).toMatch(/^2 rows after 2 changes \(/);
      changes.slice(2).forEach((c) => view.show(c));
      vi.advanceTimersByTime(100);
      expect(terminal.raw).toEqual(['\u001b[7A\r\u001b[J']);
      expect(out.slice(7, 12)).toEqual(['+---+---+', '| k | n |', '+---+---+', '| a | 2 |', '+---+---+']);
      view.finish(2000);
      view.close();
      expect(terminal.raw).toEqual(['\u001b[7A\r\u001b[J', '\u001b[6A\r\u001b[J']);
      expect(out.slice(13)).toEqual(['+---+---+', '| k | n |', '+---+---+', '| a | 2 |', '+---+---+', '1 row in set (2.00 seconds)']);
    });

    it('shows no more rows than the screen holds, and lines no wider', () => {
      const { out, write } = lines();
      const view = new LiveTableView(write, screen(9, 100));
      for (let i = 0; i < 10; i++) view.show({ op: '+I', columns: ['wide', 'i'], cells: ['x'.repeat(120), String(i)] });
      vi.advanceTimersByTime(100);
      expect(out).toHaveLength(8);
      expect(out.every((line) => line.length < 100)).toBe(true);
      expect(out[7]).toMatch(/^10 rows after 10 changes .*, 7 not shown/);
      view.close();
    });

    it('without cursor movement prints only the final table', () => {
      const { out, write } = lines();
      const view = new LiveTableView(write, { ...screen(24), redraw: false });
      changes.forEach((c) => view.show(c));
      vi.advanceTimersByTime(1000);
      expect(out).toEqual([]);
      view.finish(10);
      expect(out.at(-1)).toBe('1 row in set (0.01 seconds)');
    });
  });
});

describe('colours', () => {
  const tty = (colors: boolean): NodeJS.WriteStream => ({ isTTY: true, hasColors: () => colors, write: () => true }) as unknown as NodeJS.WriteStream;

  it('styles a terminal with colours, and nothing else', () => {
    expect(styleFor(tty(true), {}).error('x')).toBe('\u001b[31mx\u001b[39m');
    expect(styleFor(tty(true), {}).dim('x')).toBe('\u001b[2mx\u001b[22m');
    expect(styleFor(tty(true), {}).bold('x')).toBe('\u001b[1mx\u001b[22m');
    expect(styleFor(tty(true), { NO_COLOR: '1' }).error('x')).toBe('x');
    expect(styleFor(tty(false), {}).error('x')).toBe('x');
    expect(styleFor({ write: () => true } as unknown as NodeJS.WriteStream, { FORCE_COLOR: '1' }).error('x')).toBe('x');
  });
});
