/**
 * Binds CREATE MATERIALIZED VIEW into a sink plan: the query, written into a Postgres table of
 * the view's name (or `'table-name'`), keyed by the query's unique key. An updating query needs
 * one (a GROUP BY, a keyed source); an insert-only one becomes an append table.
 */
import { WeirError } from '../../common/errors.js';
import type { LogicalSink } from '../../plan/logical/logical-node.js';
import { uniqueKey } from '../../plan/logical/unique-key.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../catalog/catalog.js';
import type { CreateMaterializedView } from '../parse/ast.js';
import { bindQuery } from './bind-query.js';
import type { BinderContext } from './binder-context.js';

/** The connector every materialized view writes through. */
const CONNECTOR = 'postgres';

/** The option that keeps a view's table in Postgres when the view is dropped; the view's own, not its sink's. */
export const KEEP_TABLE_OPTION = 'keep-table-on-drop';

/** Options a materialized view's WITH clause may set (the rest are fixed by the view). */
const VIEW_OPTIONS = new Set(['url', 'table-name', 'sink.semantic', 'sink.buffer-flush.max-rows', KEEP_TABLE_OPTION]);

/** The sink of a materialized view named `name`. */
export function bindMaterializedView(statement: CreateMaterializedView, name: string, ctx: BinderContext): LogicalSink {
  const bound = bindQuery(statement.query, ctx);
  const names = bound.schema.map((f) => f.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) {
    throw new WeirError('INVALID_ARGUMENT', `materialized view '${name}' would have two columns named '${duplicate}'`, { span: statement.query.span, hint: 'give the columns distinct aliases' });
  }
  for (const option of statement.options) {
    if (!VIEW_OPTIONS.has(option.key)) {
      throw new WeirError('INVALID_OPTION', `unknown option '${option.key}' for a materialized view`, { span: option.span, hint: `supported options: ${[...VIEW_OPTIONS].join(', ')}` });
    }
  }
  const key = uniqueKey(bound.plan);
  const primaryKey = key?.map((i) => names[i]!) ?? [];
  for (const option of statement.options) {
    if (option.key === KEEP_TABLE_OPTION && option.value !== 'true' && option.value !== 'false') {
      throw new WeirError('INVALID_OPTION', `option '${KEEP_TABLE_OPTION}' must be 'true' or 'false', got '${option.value}'`, { span: option.span });
    }
  }
  const sinkOptions = statement.options.filter((o) => o.key !== KEEP_TABLE_OPTION).map((o) => [o.key, o.value] as const);
  const options = new Map([['connector', CONNECTOR], ['table-name', name], ...sinkOptions]);
  const connector = ctx.catalog.connector(CONNECTOR, statement.span);
  try {
    connector.validate?.(options, bound.schema, primaryKey);
  } catch (error) {
    throw error instanceof WeirError ? error.withSpan(statement.span) : error;
  }
  return {
    kind: 'sink',
    input: bound.plan,
    target: {
      qualifiedName: `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${name}`,
      name,
      connector: CONNECTOR,
      options: Object.fromEntries(options),
      accepts: 'upsert',
      primaryKey,
    },
    schema: bound.schema,
  };
}
