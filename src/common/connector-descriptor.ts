/**
 * What a connector declares about itself, so that the catalog can validate options at DDL time
 * and the planner can reason about boundedness and changelog modes without importing connector
 * code. Pure data plus pure functions over options.
 */
import type { SourceSpan } from './errors.js';
import type { Schema } from './schema.js';

/** Which row kinds a source produces or a sink accepts. */
export type ChangelogKinds = 'insert-only' | 'all' | 'upsert';

/** One option a connector understands. */
export interface OptionSpec {
  /** The exact key, or a pattern with `<field>` for per-field keys: `fields.<field>.kind`. */
  readonly key: string;
  readonly required?: boolean;
  readonly description: string;
  /** Allowed values, when the option is an enumeration. */
  readonly values?: readonly string[];
  readonly default?: string;
}

/** What a table declared with a connector is known to be, given its options. */
export interface ConnectorTraits {
  /** True when the source ends by itself. */
  readonly bounded: boolean;
  /** True when the source can replay from an offset kept in a checkpoint. */
  readonly replayable: boolean;
  /** The source's changelog for these options, when they choose it (else the descriptor's). */
  readonly changelog?: ChangelogKinds;
}

/** The descriptor of one connector (`'connector' = name`). */
export interface ConnectorDescriptor {
  readonly name: string;
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** Present when the connector can be read from. */
  readonly source?: {
    readonly changelog: ChangelogKinds;
    /** Boundedness and replayability for these options and this (physical) schema. */
    traits(options: ReadonlyMap<string, string>, schema: Schema): ConnectorTraits;
  };
  /** Present when the connector can be written to. */
  readonly sink?: {
    /** `all`: any changelog; `insert-only`: needs an append-only query; `upsert`: updates by primary key. */
    readonly accepts: ChangelogKinds;
  };
  /** True when the connector's tables can be looked up by key (the table side of a lookup join). */
  readonly lookup?: boolean;
  /**
   * Checks options against the schema (and the `PARTITIONED BY` columns) beyond what `options`
   * declares; throws a WeirError (INVALID_OPTION) naming the option. Called at DDL time.
   */
  validate?(options: ReadonlyMap<string, string>, schema: Schema, primaryKey: readonly string[], partitionedBy?: readonly string[]): void;
}

/** A table option as written in a WITH clause. */
export interface WrittenOption {
  readonly key: string;
  readonly value: string;
  readonly span?: SourceSpan;
}

/**
 * Translates a table's options written in Flink's legacy style (`'connector.type'` instead of
 * `'connector'`) into current ones, each keeping the span it came from; throws INVALID_OPTION for
 * what it cannot translate. Provided by the connectors, used by the catalog at DDL time.
 */
export type LegacyOptionTranslator = (options: readonly WrittenOption[]) => WrittenOption[];

/** The connector of a table declared without one: a writable table stored by weir. */
export const WRITABLE_TABLE_CONNECTOR = 'weir-table';
