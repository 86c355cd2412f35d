/**
 * A SELECT over system tables only (`weir.jobs`, ...) answers like a catalog query: it runs to its
 * end over the snapshot and gives a finite, ordered table. Its outer ORDER BY (also without the
 * LIMIT a streaming query needs), OFFSET and LIMIT are applied to the collected result, by output
 * column name or position, NULLs ordered as in Flink unless NULLS FIRST / LAST says otherwise
 * (first ascending, last descending; see order-key.ts).
 */
import { WeirError } from '../common/errors.js';
import { orderKey } from '../common/order-key.js';
import { RowKind } from '../common/row-kind.js';
import type { Row } from '../common/row.js';
import type { Schema } from '../common/schema.js';
import type { ExternalResult } from '../connectors/api/connector.js';
import type { SinkSpec } from '../dataflow/job-graph.js';
import type { LogicalNode } from '../plan/logical/logical-node.js';
import { rowComparator } from '../runtime/operators/row-order.js';
import type { SinkWriter } from '../runtime/sink-writer.js';
import type { Expr, OrderItem, ParsedStatement, Query } from '../sql/parse/ast.js';
import type { JobHandle } from './job-handle.js';
import { outputColumnOf } from './result-order.js';
import { readsOnlySystemTables } from './system-tables.js';

/** What running a system query needs from the session. */
export interface SystemQueryHost {
  /** Binds a query; throws what the binder throws. */
  bind(query: Query): { readonly plan: LogicalNode; readonly schema: Schema };
  /** Runs a one-query statement as an unlisted job writing to writers from `createWriter`. */
  run(statement: ParsedStatement, createWriter: (spec: SinkSpec) => SinkWriter): Promise<JobHandle>;
}

/** The result of `parsed` when it is a query reading only system tables; undefined otherwise (run it as usual). */
export async function querySystemTables(parsed: ParsedStatement, host: SystemQueryHost): Promise<ExternalResult | undefined> {
  if (parsed.statement.kind !== 'query') return undefined;
  const { query, order, offset, limit } = splitOuterOrder(parsed.statement.query);
  let bound: { plan: LogicalNode; schema: Schema };
  try {
    bound = host.bind(query);
  } catch (error) {
    // Without ORDER BY / OFFSET / LIMIT the usual path binds the same query and reports the same
    // error; with them it would stop at those clauses first, so this error is the one to report.
    if (order.length > 0 || offset !== undefined || limit !== undefined) throw error;
    return undefined;
  }
  if (!readsOnlySystemTables([bound.plan])) return undefined;
  const keys = order.map((item) => orderKey(orderColumn(item, bound.schema), item.descending, item.nullsFirst));
  const rows = new ResultRows();
  const job = await host.run({ ...parsed, statement: { ...parsed.statement, query } }, () => rows);
  if ((await job.result()) === 'FAILED') throw job.error;
  const sorted = rows.list().sort(rowComparator(keys));
  const from = offset === undefined ? 0 : count(offset, 'OFFSET');
  return { schema: bound.schema, rows: sorted.slice(from, limit === undefined ? undefined : from + count(limit, 'LIMIT')) };
}

/** The query without its outer ORDER BY, OFFSET and LIMIT, and those. */
function splitOuterOrder(query: Query): { query: Query; order: readonly OrderItem[]; offset?: Expr; limit?: Expr } {
  switch (query.kind) {
    case 'with': {
      const body = splitOuterOrder(query.body);
      return { ...body, query: { ...query, body: body.query } };
    }
    case 'select':
    case 'set-operation':
      return { query: { ...query, orderBy: [], limit: undefined, offset: undefined }, order: query.orderBy, ...defined('offset', query.offset), ...defined('limit', query.limit) };
    case 'values':
      return { query, order: [] };
  }
}

function defined<K extends string>(key: K, value: Expr | undefined): Partial<Record<K, Expr>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, Expr>);
}

/** The output column an ORDER BY item names: a column name (its last part) or a 1-based position. */
function orderColumn(item: OrderItem, schema: Schema): number {
  const index = outputColumnOf(item, schema);
  if (index !== undefined) return index;
  throw new WeirError('UNSUPPORTED', 'ORDER BY over system tables takes the name or position of an output column', {
    span: item.span,
    hint: `output columns: ${schema.map((f) => f.name).join(', ')}`,
  });
}

/** A non-negative integer literal of LIMIT or OFFSET. */
function count(expr: Expr, clause: string): number {
  if (expr.kind === 'literal' && expr.type === 'number' && /^\d+$/.test(expr.text)) return Number(expr.text);
  throw new WeirError('UNSUPPORTED', `${clause} over system tables takes a non-negative integer`, { span: expr.span });
}

/** The rows of a changelog applied in arrival order (a retraction removes one equal row). */
class ResultRows implements SinkWriter {
  private readonly rows = new Map<string, Row[]>();

  async open(): Promise<void> {}

  write(batch: { readonly kinds: readonly number[]; readonly rows: readonly Row[] }): void {
    for (let i = 0; i < batch.rows.length; i++) {
      const row = batch.rows[i]!;
      const key = JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      const kind = batch.kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        const list = this.rows.get(key);
        if (list === undefined) this.rows.set(key, [row]);
        else list.push(row);
      } else {
        const list = this.rows.get(key);
        if (list === undefined) throw new WeirError('INTERNAL_ERROR', `a system query retracted a row it never produced: ${key}`);
        list.pop();
        if (list.length === 0) this.rows.delete(key);
      }
    }
  }

  list(): Row[] {
    return [...this.rows.values()].flat();
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
