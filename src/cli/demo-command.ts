/**
 * `weir demo` (what `npm start` runs): a stream of generated orders maintained into two
 * materialized views in the embedded PostgreSQL (no server needed), exactly once. Once a second
 * it prints what Postgres holds — the rows committed so far — until the stream ends. The views
 * stay in the working directory's catalog, so the shell (`weir`) can query them afterwards.
 */
import { createEngine, parseScriptText, type Engine } from '../engine/engine.js';
import type { JobHandle } from '../engine/job-handle.js';
import { renderError, renderTable } from '../engine/result-format.js';
import type { StatementResult } from '../engine/statement-result.js';
import { EXIT } from './run-command.js';
import { workingCatalogFile } from './working-catalog.js';

/** The demo script; `weir demo --sql` prints it. */
export const DEMO_SQL = `-- Start afresh: the views (and their tables in Postgres) of an earlier demo go.
DROP MATERIALIZED VIEW IF EXISTS customer_totals;
DROP MATERIALIZED VIEW IF EXISTS product_sales;
DROP TABLE IF EXISTS orders;

-- Orders arrive at 50 per second; 600 of them in all.
CREATE TABLE orders (
  order_id BIGINT,
  customer INT,
  product  STRING,
  amount   DECIMAL(10, 2)
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '50',
  'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1',
  'fields.order_id.end' = '600',
  'fields.customer.min' = '1',
  'fields.customer.max' = '8',
  'fields.product.length' = '1',
  'fields.amount.min' = '1',
  'fields.amount.max' = '100'
);

-- Two views kept in PostgreSQL (the embedded one: no 'url' given), committed every second.
CREATE MATERIALIZED VIEW customer_totals AS
SELECT customer, COUNT(*) AS orders, SUM(amount) AS total, MAX(amount) AS biggest
FROM orders
GROUP BY customer;

CREATE MATERIALIZED VIEW product_sales AS
SELECT product, COUNT(*) AS orders, SUM(amount) AS revenue
FROM orders
GROUP BY product;
`;

/** What the demo prints each second: the views as Postgres has them committed. */
const VIEW_QUERIES = [
  'SELECT customer, orders, total, biggest FROM customer_totals ORDER BY total DESC LIMIT 5',
  'SELECT count(*) AS products, sum(orders) AS orders, sum(revenue) AS revenue FROM product_sales',
];

/** Runs the demo; resolves with the exit code. */
export async function runDemo(options: { verbose: boolean; intervalMs?: number }): Promise<number> {
  let engine: Engine | undefined;
  try {
    engine = createEngine({ catalogFile: workingCatalogFile() });
    await engine.restore({ runMaterializedViews: false });
    let job: JobHandle | undefined;
    for await (const { result } of engine.executeScript(DEMO_SQL)) {
      if (result.kind === 'job') job = result.job;
    }
    if (job === undefined) throw new Error('the demo script started no job');
    const views = engine.session.catalog.materializedViews().length;
    process.stdout.write(`Maintaining ${views} materialized views in one job, in the embedded PostgreSQL (.weir/postgres); committed rows, once a second:\n`);
    let finished = false;
    const ended = job.result().then(() => (finished = true));
    while (!finished) {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1_000))]);
      if (job.status === 'FAILED') throw job.error;
      await printViews(engine, finished ? 'final' : new Date().toISOString().slice(11, 19));
    }
    process.stdout.write("Done. The views stay in .weir: run `weir` here and SELECT * FROM customer_totals; or run the demo again.\n");
    return EXIT.OK;
  } catch (error) {
    process.stderr.write(renderError(error) + '\n');
    if (options.verbose && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
    await engine?.close().catch(() => undefined);
    return EXIT.ERROR;
  }
}

async function printViews(engine: Engine, label: string): Promise<void> {
  const results: StatementResult[] = [];
  for (const query of VIEW_QUERIES) {
    const [statement] = parseScriptText(query);
    results.push(await engine.session.execute(statement!));
  }
  process.stdout.write(`\n-- ${label}\n${results.map((r) => (r.kind === 'rows' ? renderTable(r) : '')).join('\n')}\n`);
}
