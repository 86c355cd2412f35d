/**
 * weir's own decision-support workload, data side: a small order-entry schema (nations, customers,
 * suppliers, orders, order lines) generated deterministically from a seed, with NULLs in the
 * nullable columns, and rounds of changes (new orders with their lines, updates of status,
 * quantity and balance, deletes of orders with their lines) to apply after the initial load. The
 * same statements run in weir (writable tables) and in PostgreSQL (mirror tables), so both hold the
 * same rows after each round.
 */

/** One table: its weir DDL, its PostgreSQL DDL and its column names in insert order. */
export interface DssTable {
  readonly name: string;
  readonly weir: string;
  readonly postgres: string;
}

/** The schema, in the order tables are loaded (every key is NOT ENFORCED in weir, a real key in PostgreSQL). */
export const DSS_TABLES: readonly DssTable[] = [
  {
    name: 'nation',
    weir: 'CREATE TABLE nation (n_id INT, name STRING, region STRING, PRIMARY KEY (n_id) NOT ENFORCED)',
    postgres: 'CREATE TABLE nation (n_id INT PRIMARY KEY, name TEXT, region TEXT)',
  },
  {
    name: 'customer',
    weir: 'CREATE TABLE customer (c_id INT, name STRING, n_id INT, segment STRING, balance DECIMAL(10, 2), PRIMARY KEY (c_id) NOT ENFORCED)',
    postgres: 'CREATE TABLE customer (c_id INT PRIMARY KEY, name TEXT, n_id INT, segment TEXT, balance NUMERIC(10, 2))',
  },
  {
    name: 'supplier',
    weir: 'CREATE TABLE supplier (s_id INT, name STRING, n_id INT, balance DECIMAL(10, 2), PRIMARY KEY (s_id) NOT ENFORCED)',
    postgres: 'CREATE TABLE supplier (s_id INT PRIMARY KEY, name TEXT, n_id INT, balance NUMERIC(10, 2))',
  },
  {
    name: 'orders',
    weir: 'CREATE TABLE orders (o_id INT, c_id INT, status STRING, total DECIMAL(10, 2), order_date DATE, PRIMARY KEY (o_id) NOT ENFORCED)',
    postgres: 'CREATE TABLE orders (o_id INT PRIMARY KEY, c_id INT, status TEXT, total NUMERIC(10, 2), order_date DATE)',
  },
  {
    name: 'lineitem',
    weir:
      'CREATE TABLE lineitem (o_id INT, line INT, s_id INT, qty INT, price DECIMAL(10, 2), discount DECIMAL(3, 2), ship_date DATE, returned BOOLEAN, PRIMARY KEY (o_id, line) NOT ENFORCED)',
    postgres:
      'CREATE TABLE lineitem (o_id INT, line INT, s_id INT, qty INT, price NUMERIC(10, 2), discount NUMERIC(3, 2), ship_date DATE, returned BOOLEAN, PRIMARY KEY (o_id, line))',
  },
];

/** How much to generate. */
export interface DssSizes {
  readonly customers: number;
  readonly suppliers: number;
  readonly orders: number;
  /** Change rounds after the load. */
  readonly rounds: number;
  /** Orders inserted, updated and deleted per round (each with its lines). */
  readonly changesPerRound: number;
}

/** The generated workload: INSERT statements loading every table (in chunks), then the rounds of changes. */
export interface DssWorkload {
  /** INSERT ... VALUES statements, each at most `chunk` rows, in load order. */
  readonly load: readonly string[];
  /** Rows the load inserts. */
  readonly loadRows: number;
  /** Per round, its statements (valid in weir and PostgreSQL) and how many rows they change. */
  readonly rounds: readonly { readonly statements: readonly string[]; readonly rowsChanged: number }[];
}

/** A small seeded PRNG (mulberry32): the same seed gives the same workload everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REGIONS = ['NORTH', 'SOUTH', 'EAST', 'WEST'];
const NATIONS = ['ALDOR', 'BRENN', 'CALDA', 'DUROS', 'ESTRA', 'FENNI', 'GORAN', 'HALDE', 'IVORA', 'JORUN', 'KESTA', 'LUMEN'];
const SEGMENTS = ['RETAIL', 'WHOLESALE', 'PUBLIC', 'ONLINE'];
const STATUSES = ['OPEN', 'SHIPPED', 'CLOSED'];

/** A SQL literal of a value (NULL, number, string, boolean, or a date as `DATE '...'`). */
type Literal = null | number | string | boolean | { readonly date: string } | { readonly decimal: string };

function sql(value: Literal): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if ('date' in value) return `DATE '${value.date}'`;
  return value.decimal;
}

function insert(table: string, rows: readonly Literal[][], chunk: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += chunk) {
    out.push(`INSERT INTO ${table} VALUES ${rows.slice(i, i + chunk).map((r) => `(${r.map(sql).join(', ')})`).join(', ')}`);
  }
  return out;
}

/** Generates the workload for `sizes` from `seed`; `chunk` rows per INSERT statement. */
export function generateDss(sizes: DssSizes, seed = 15, chunk = 500): DssWorkload {
  const random = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const maybe = <T extends Literal>(nullShare: number, value: T): T | null => (random() < nullShare ? null : value);
  const money = (lo: number, hi: number): { decimal: string } => ({ decimal: (int(lo * 100, hi * 100) / 100).toFixed(2) });
  const date = (): { date: string } => {
    const day = new Date(Date.UTC(2024, 0, 1) + int(0, 729) * 86_400_000);
    return { date: day.toISOString().slice(0, 10) };
  };

  const nations: Literal[][] = NATIONS.map((name, i) => [i + 1, name, REGIONS[i % REGIONS.length]!]);
  const customers: Literal[][] = [];
  for (let c = 1; c <= sizes.customers; c++) {
    customers.push([c, `cust${c}`, maybe(0.05, int(1, NATIONS.length)), maybe(0.1, pick(SEGMENTS)), maybe(0.05, money(-500, 5000))]);
  }
  const suppliers: Literal[][] = [];
  for (let s = 1; s <= sizes.suppliers; s++) suppliers.push([s, `supp${s}`, int(1, NATIONS.length), maybe(0.1, money(-200, 9000))]);

  const orders: Literal[][] = [];
  const lines: Literal[][] = [];
  /** Lines per live order, so deletes and updates can find them. */
  const linesOf = new Map<number, number>();
  let nextOrder = 1;
  const newOrder = (): { order: Literal[]; lines: Literal[][] } => {
    const o = nextOrder++;
    // Customers with high numbers order nothing at first, so outer joins have zero counts.
    const order: Literal[] = [o, int(1, Math.max(1, Math.floor(sizes.customers * 0.9))), maybe(0.05, pick(STATUSES)), money(10, 2000), date()];
    const count = int(1, 5);
    const its: Literal[][] = [];
    for (let l = 1; l <= count; l++) {
      its.push([o, l, maybe(0.03, int(1, sizes.suppliers)), int(1, 50), money(1, 300), maybe(0.1, { decimal: (int(0, 10) / 100).toFixed(2) }), maybe(0.1, date()), random() < 0.15]);
    }
    linesOf.set(o, count);
    return { order, lines: its };
  };
  for (let i = 0; i < sizes.orders; i++) {
    const made = newOrder();
    orders.push(made.order);
    lines.push(...made.lines);
  }
  const load = [...insert('nation', nations, chunk), ...insert('customer', customers, chunk), ...insert('supplier', suppliers, chunk), ...insert('orders', orders, chunk), ...insert('lineitem', lines, chunk)];
  const loadRows = nations.length + customers.length + suppliers.length + orders.length + lines.length;

  const rounds: { statements: string[]; rowsChanged: number }[] = [];
  for (let r = 0; r < sizes.rounds; r++) {
    const statements: string[] = [];
    let rowsChanged = 0;
    // New orders with their lines.
    const added: Literal[][] = [];
    const addedLines: Literal[][] = [];
    for (let i = 0; i < sizes.changesPerRound; i++) {
      const made = newOrder();
      added.push(made.order);
      addedLines.push(...made.lines);
    }
    statements.push(...insert('orders', added, chunk), ...insert('lineitem', addedLines, chunk));
    rowsChanged += added.length + addedLines.length;
    // Updates: order status, line quantities, customer balances.
    const live = [...linesOf.keys()];
    for (let i = 0; i < sizes.changesPerRound; i++) {
      const o = pick(live);
      statements.push(`UPDATE orders SET status = ${sql(maybe(0.1, pick(STATUSES)))} WHERE o_id = ${o}`);
      const line = int(1, linesOf.get(o)!);
      statements.push(`UPDATE lineitem SET qty = qty + ${int(1, 9)} WHERE o_id = ${o} AND line = ${line}`);
      statements.push(`UPDATE customer SET balance = ${sql(maybe(0.1, money(-500, 5000)))} WHERE c_id = ${int(1, sizes.customers)}`);
      rowsChanged += 3;
    }
    // Deletes of whole orders.
    const doomed = new Set<number>();
    while (doomed.size < Math.min(sizes.changesPerRound, live.length - 1)) doomed.add(pick(live));
    const list = [...doomed].sort((a, b) => a - b).join(', ');
    statements.push(`DELETE FROM lineitem WHERE o_id IN (${list})`, `DELETE FROM orders WHERE o_id IN (${list})`);
    for (const o of doomed) {
      rowsChanged += 1 + linesOf.get(o)!;
      linesOf.delete(o);
    }
    rounds.push({ statements, rowsChanged });
  }
  return { load, loadRows, rounds };
}
