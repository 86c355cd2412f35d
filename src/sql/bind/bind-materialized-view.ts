/**
 * Binds CREATE MATERIALIZED VIEW into a sink plan: the query (its top-level ORDER BY without a
 * LIMIT dropped: a table has no order), its columns renamed by the view's column list, written into
 * a Postgres table of the view's name (or `'table-name'`). How the table is keyed is the planner's
 * choice (see `materializedViewKeying` in plan/planner.ts): by a key of the query when it has one,
 * else as a multiset, whose rows a hidden column identifies — so any query can be a view.
 */
import { WeirError } from '../../common/errors.js';
import { type LogicalNode, LogicalSink, } from '../../plan/logical/logical-node.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../catalog/catalog.js';
import type { CreateMaterializedView } from '../parse/ast.js';
import { bindQuery, renamed, withoutOrder } from './bind-query.js';
import type { BinderContext } from './binder-context.js';

/** The connector every materialized view writes through. */
const CONNECTOR = 'postgres';

/** The option that keeps a view's table in Postgres when the view is dropped; the view's own, not its sink's. */
export const KEEP_TABLE_OPTION = 'keep-table-on-drop';

/** Options a materialized view's WITH clause may set (the rest are fixed by the view). */
const VIEW_OPTIONS = new Set(['url', 'table-name', 'sink.semantic', 'sink.buffer-flush.max-rows', KEEP_TABLE_OPTION]);

/**
 * How a view's table is keyed: by output columns that are a key of the query (`materialize` when
 * they are unique but the changes of one key's row may arrive out of order, so that the sink
 * materializes them per key), or as a multiset without a key.
 */
export type ViewKeying = { readonly kind: 'key'; readonly columns: readonly number[]; readonly materialize: boolean } | { readonly kind: 'multiset' };

/** The sink of a materialized view named `name`; `keying` chooses how its table is keyed. */
export function bindMaterializedView(statement: CreateMaterializedView, name: string, ctx: BinderContext, keying: (query: LogicalNode) => ViewKeying): LogicalSink {
  const bound = renamed(bindQuery(withoutOrder(statement.query), ctx), statement.columns?.map((c) => c.name), statement.columns?.[0]?.span ?? statement.query.span);
  const names = bound.schema.map((f) => f.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) {
    throw new WeirError('INVALID_ARGUMENT', `materialized view '${name}' would have two columns named '${duplicate}'`, { span: statement.query.span, hint: 'give the columns distinct aliases' });
  }
  for (const option of statement.options) {
    if (!VIEW_OPTIONS.has(option.key)) {
      throw new WeirError('INVALID_OPTION', `unknown option '${option.key}' for a materialized view`, { span: option.span, hint: `supported options: ${[...VIEW_OPTIONS].join(', ')}` });
    }
    if (option.key === KEEP_TABLE_OPTION && option.value !== 'true' && option.value !== 'false') {
      throw new WeirError('INVALID_OPTION', `option '${KEEP_TABLE_OPTION}' must be 'true' or 'false', got '${option.value}'`, { span: option.span });
    }
  }
  const keyed = keying(bound.plan);
  const primaryKey = keyed.kind === 'key' ? keyed.columns.map((i) => names[i]!) : [];
  const sinkOptions = statement.options.filter((o) => o.key !== KEEP_TABLE_OPTION).map((o) => [o.key, o.value] as const);
  const options = new Map([['connector', CONNECTOR], ['table-name', name], ...sinkOptions]);
  const connector = ctx.catalog.connector(CONNECTOR, statement.span);
  try {
    connector.validate?.(options, bound.schema, primaryKey);
  } catch (error) {
    throw error instanceof WeirError ? error.withSpan(statement.span) : error;
  }
  return LogicalSink.create({
    input: bound.plan,
    target: {
      qualifiedName: `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${name}`,
      name,
      connector: CONNECTOR,
      options: Object.fromEntries(options),
      accepts: 'upsert',
      primaryKey,
      ...(keyed.kind === 'multiset' ? { multiset: true } : keyed.materialize ? { conflictStrategy: 'DEDUPLICATE' } : {}),
    },
    columns: bound.schema,
  });
}
