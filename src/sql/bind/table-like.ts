/**
 * Flink's `CREATE TABLE ... LIKE source [(options)]`: the new table's definition merged with the
 * source table's, feature by feature (FLIP-110). The source's columns come first, then the new
 * ones; each feature of the source — CONSTRAINTS (the primary key), GENERATED (computed columns),
 * METADATA, OPTIONS, PARTITIONS, WATERMARKS — is INCLUDING (kept; a duplicate in the new table is
 * an error), EXCLUDING (left out) or OVERWRITING (kept, the new table's replacing a duplicate).
 * Unless told otherwise: INCLUDING everything but OPTIONS, which are OVERWRITING; `ALL` sets every
 * feature, and the options after it change single ones. Physical columns are always inherited.
 *
 * The merge is written out as the text of a plain CREATE TABLE (the source's and the new
 * statement's own pieces, as written), which is then bound as any other: so the table's DDL is
 * the whole definition (SHOW CREATE TABLE, and a table LIKE this one, read it without the source).
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import { quoteIdentifierIfNeeded } from '../../common/sql-type.js';
import type { ColumnDefinition, CreateTable, LikeFeature, LikeStrategy, TableLike } from '../parse/ast.js';
import { parseStatement } from '../parse/parser.js';
import { objectName } from './bind-query.js';
import type { BinderContext } from './binder-context.js';

/** The features a LIKE option names, ALL aside. */
type Feature = Exclude<LikeFeature, 'ALL'>;

const FEATURES: readonly Feature[] = ['CONSTRAINTS', 'GENERATED', 'METADATA', 'OPTIONS', 'PARTITIONS', 'WATERMARKS'];

/** How each feature is merged when no option says otherwise. */
const DEFAULT_STRATEGIES: Readonly<Record<Feature, LikeStrategy>> = {
  CONSTRAINTS: 'INCLUDING',
  GENERATED: 'INCLUDING',
  METADATA: 'INCLUDING',
  OPTIONS: 'OVERWRITING',
  PARTITIONS: 'INCLUDING',
  WATERMARKS: 'INCLUDING',
};

/** Features for which OVERWRITING means nothing (a table has one primary key, one partitioning). */
const NOT_OVERWRITABLE: ReadonlySet<LikeFeature> = new Set(['ALL', 'CONSTRAINTS', 'PARTITIONS']);

/** A statement with the text its spans point into. */
interface Written {
  readonly statement: CreateTable;
  readonly text: string;
}

/** A column of the merged table, as text, with what it is. */
interface MergedColumn {
  readonly kind: ColumnDefinition['kind'];
  readonly text: string;
}

/**
 * The text of a plain CREATE TABLE equal to `statement` (which has a LIKE clause) merged with its
 * source table; `text` is the statement as written.
 */
export function expandTableLike(statement: CreateTable, text: string, ctx: BinderContext): string {
  const like = statement.like!;
  const strategies = mergingStrategies(like);
  const source = sourceDefinition(like, ctx);
  const derived: Written = { statement, text };

  const columns = new Map<string, MergedColumn>();
  for (const column of source.statement.columns) {
    if (column.kind === 'computed-column' && strategies.GENERATED === 'EXCLUDING') continue;
    if (column.kind === 'metadata-column' && strategies.METADATA === 'EXCLUDING') continue;
    columns.set(column.name.name, { kind: column.kind, text: columnText(source, column) });
  }
  for (const column of statement.columns) {
    const name = column.name.name;
    const existing = columns.get(name);
    if (existing !== undefined) {
      if (column.kind === 'physical-column' || existing.kind !== column.kind) {
        const only = column.kind === 'computed-column' ? ' Computed columns can only overwrite other computed columns.' : column.kind === 'metadata-column' ? ' Metadata columns can only overwrite other metadata columns.' : '';
        throw new WeirError('DUPLICATE_OBJECT', `A column named '${name}' already exists in the base table.${only}`, { span: column.name.span });
      }
      const feature = column.kind === 'computed-column' ? 'GENERATED' : 'METADATA';
      if (strategies[feature] !== 'OVERWRITING') {
        const what = feature === 'GENERATED' ? 'generated' : 'metadata';
        throw new WeirError('DUPLICATE_OBJECT', `A ${what} column named '${name}' already exists in the base table. You might want to specify EXCLUDING ${feature} or OVERWRITING ${feature}.`, { span: column.name.span });
      }
    }
    // An overwritten column keeps its place; a new one comes after the source's.
    columns.set(name, { kind: column.kind, text: columnText(derived, column) });
  }

  const watermark = mergedWatermark(source, derived, strategies.WATERMARKS);
  const primaryKey = mergedPrimaryKey(source.statement, statement, strategies.CONSTRAINTS);
  const partitionedBy = mergedPartitions(source.statement, statement, strategies.PARTITIONS);
  const options = mergedOptions(source.statement, statement, strategies.OPTIONS);

  const elements = [...[...columns.values()].map((c) => c.text), ...(watermark === undefined ? [] : [watermark]), ...(primaryKey.length === 0 ? [] : [`PRIMARY KEY (${primaryKey.map(quoteIdentifierIfNeeded).join(', ')}) NOT ENFORCED`])];
  const header = `CREATE ${statement.temporary ? 'TEMPORARY ' : ''}TABLE ${statement.ifNotExists ? 'IF NOT EXISTS ' : ''}${statement.name.parts.map((p) => quoteIdentifierIfNeeded(p.name)).join('.')}`;
  return [
    `${header} (\n  ${elements.join(',\n  ')}\n)`,
    ...(statement.comment === undefined ? [] : [`COMMENT ${quoteString(statement.comment)}`]),
    ...(partitionedBy.length === 0 ? [] : [`PARTITIONED BY (${partitionedBy.map(quoteIdentifierIfNeeded).join(', ')})`]),
    ...(options.size === 0 ? [] : [`WITH (\n  ${[...options].map(([key, value]) => `${quoteString(key)} = ${quoteString(value)}`).join(',\n  ')}\n)`]),
  ].join('\n');
}

/** The strategy of every feature: the defaults, then ALL, then the single features' options; each feature named once at most. */
function mergingStrategies(like: TableLike): Record<Feature, LikeStrategy> {
  const result = { ...DEFAULT_STRATEGIES };
  const seen = new Set<LikeFeature>();
  for (const option of like.options) {
    if (seen.has(option.feature)) throw new WeirError('INVALID_ARGUMENT', `each LIKE option feature can be declared only once, but ${option.feature} is declared twice`, { span: option.span });
    seen.add(option.feature);
    if (option.strategy === 'OVERWRITING' && NOT_OVERWRITABLE.has(option.feature)) {
      throw new WeirError('INVALID_ARGUMENT', `Illegal merging strategy 'OVERWRITING' for '${option.feature}' option.`, { span: option.span });
    }
  }
  const all = like.options.find((o) => o.feature === 'ALL');
  if (all !== undefined) for (const feature of FEATURES) result[feature] = all.strategy;
  for (const option of like.options) if (option.feature !== 'ALL') result[option.feature] = option.strategy;
  return result;
}

/** The source table's CREATE TABLE statement (itself without LIKE: a table's DDL is always expanded). */
function sourceDefinition(like: TableLike, ctx: BinderContext): Written {
  const name = objectName(like.source.parts, like.source.span);
  const relation = ctx.catalog.get(name, like.source.span);
  if (relation.kind !== 'table') throw new WeirError('INVALID_ARGUMENT', `Source table '${name}' of the LIKE clause can not be a ${relation.kind.replace('-', ' ')}`, { span: like.source.span });
  const statement = parseStatement(relation.ddl);
  if (statement.kind !== 'create-table' || statement.like !== undefined) throw new WeirError('INTERNAL_ERROR', `the definition of table '${name}' is not a plain CREATE TABLE`, { span: like.source.span });
  return { statement, text: relation.ddl };
}

/** A column's definition as written, without an inline PRIMARY KEY (the merged key is declared once, at the end). */
function columnText(written: Written, column: ColumnDefinition): string {
  if (column.kind !== 'physical-column' || !column.primaryKey) return slice(written, column.span);
  const parts = [slice(written, column.name.span), slice(written, column.type.span)];
  if (column.comment !== undefined) parts.push(`COMMENT ${quoteString(column.comment)}`);
  return parts.join(' ');
}

/** The watermark of the merged table, as text (a table has one at most). */
function mergedWatermark(source: Written, derived: Written, strategy: LikeStrategy): string | undefined {
  const inherited = strategy === 'EXCLUDING' ? undefined : source.statement.watermark;
  const declared = derived.statement.watermark;
  if (declared === undefined) return inherited === undefined ? undefined : slice(source, inherited.span);
  if (inherited !== undefined) {
    if (inherited.column.name === declared.column.name && strategy !== 'OVERWRITING') {
      throw new WeirError('DUPLICATE_OBJECT', `There already exists a watermark spec for column '${declared.column.name}' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.`, { span: declared.span });
    }
    if (inherited.column.name !== declared.column.name) {
      throw new WeirError('UNSUPPORTED', `the base table has a watermark for column '${inherited.column.name}' and a table has one watermark at most`, { span: declared.span, hint: 'specify EXCLUDING WATERMARKS' });
    }
  }
  return slice(derived, declared.span);
}

/** The merged primary key's columns. */
function mergedPrimaryKey(source: CreateTable, derived: CreateTable, strategy: LikeStrategy): string[] {
  const declared = keyOf(derived);
  const inherited = strategy === 'INCLUDING' ? keyOf(source) : [];
  if (declared.length > 0 && inherited.length > 0) {
    throw new WeirError('DUPLICATE_OBJECT', 'The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.', { span: derived.primaryKey?.span ?? derived.span });
  }
  return declared.length > 0 ? declared : inherited;
}

/** A statement's primary key columns (declared for the table or inline on a column). */
function keyOf(statement: CreateTable): string[] {
  if (statement.primaryKey !== undefined) return statement.primaryKey.columns.map((c) => c.name);
  return statement.columns.filter((c) => c.kind === 'physical-column' && c.primaryKey).map((c) => c.name.name);
}

/** The merged partitioning (one per table: INCLUDING both is an error). */
function mergedPartitions(source: CreateTable, derived: CreateTable, strategy: LikeStrategy): string[] {
  const declared = derived.partitionedBy.map((p) => p.name);
  const inherited = source.partitionedBy.map((p) => p.name);
  if (declared.length > 0 && inherited.length > 0 && strategy !== 'EXCLUDING') {
    throw new WeirError('DUPLICATE_OBJECT', 'The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS.', { span: derived.partitionedBy[0]!.span });
  }
  return declared.length > 0 || strategy === 'EXCLUDING' ? declared : inherited;
}

/** The merged connector options. */
function mergedOptions(source: CreateTable, derived: CreateTable, strategy: LikeStrategy): Map<string, string> {
  const options = new Map<string, string>(strategy === 'EXCLUDING' ? [] : source.options.map((o) => [o.key, o.value]));
  for (const option of derived.options) {
    const existing = options.get(option.key);
    if (existing !== undefined && strategy !== 'OVERWRITING') {
      throw new WeirError('DUPLICATE_OBJECT', `There already exists an option ['${option.key}' -> '${existing}'] in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.`, { span: option.span });
    }
    options.set(option.key, option.value);
  }
  return options;
}

function slice(written: Written, span: SourceSpan): string {
  const base = written.statement.span.start.offset;
  return written.text.slice(span.start.offset - base, span.end.offset - base);
}

/** A SQL string literal. */
function quoteString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
