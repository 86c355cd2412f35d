/** What every binding step shares: the catalog, the functions, and the CTEs in scope. */
import { UTC_ZONE } from '../../common/time-zone.js';
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import type { FunctionRegistry } from '../../expr/function-registry.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Query } from '../parse/ast.js';
import type { Scope } from './scope.js';

/**
 * A common table expression visible by name: a query with the context it was defined in, or a
 * relation already bound (a subquery's distinct outer values, see bind-subquery.ts), read as is.
 */
export type CteDefinition =
  | { readonly name: string; readonly query: Query; readonly columnNames?: readonly string[]; readonly context: BinderContext }
  | { readonly name: string; readonly relation: BoundRelation };

/** A bound relation: its plan, whose schema names and types its columns. */
export interface BoundRelation {
  readonly plan: LogicalNode;
  readonly schema: Schema;
}

/** Shared, immutable state of one binding; `withCte` and `enterView` return extended copies. */
export class BinderContext {
  constructor(
    readonly catalog: Catalog,
    readonly functions: FunctionRegistry,
    private readonly ctes: ReadonlyMap<string, CteDefinition> = new Map(),
    private readonly viewStack: readonly string[] = [],
    /** The scopes of the queries around the subquery being bound, nearest first (see bind-subquery.ts). */
    readonly outerScopes: readonly Scope[] = [],
    /** The resolved session zone (`table.local-time-zone`) constants such as VALUES rows are evaluated in. */
    readonly timeZone: string = UTC_ZONE,
  ) {}

  /** A context for binding a subquery whose enclosing query has the columns of `scope`. */
  withOuterScope(scope: Scope): BinderContext {
    return new BinderContext(this.catalog, this.functions, this.ctes, this.viewStack, [scope, ...this.outerScopes], this.timeZone);
  }

  /** The CTE of that name, if one is visible. */
  cte(name: string): CteDefinition | undefined {
    return this.ctes.get(name) ?? [...this.ctes.values()].find((c) => c.name.toLowerCase() === name.toLowerCase());
  }

  /** A context where one more CTE is visible (shadowing an outer one of the same name). */
  withCte(name: string, query: Query, columnNames: readonly string[] | undefined): BinderContext {
    const next = new Map(this.ctes);
    next.set(name, { name, query, columnNames, context: this });
    return new BinderContext(this.catalog, this.functions, next, this.viewStack, this.outerScopes, this.timeZone);
  }

  /** A context where a bound relation is visible by name, as a CTE (the decorrelator's outer values). */
  withBoundRelation(name: string, relation: BoundRelation): BinderContext {
    const next = new Map(this.ctes);
    next.set(name, { name, relation });
    return new BinderContext(this.catalog, this.functions, next, this.viewStack, this.outerScopes, this.timeZone);
  }

  /** A context for expanding a catalog view, which sees no CTEs; fails on a view that refers to itself. */
  enterView(name: string, span: SourceSpan): BinderContext {
    if (this.viewStack.includes(name)) {
      throw new WeirError('INVALID_ARGUMENT', `view '${name}' refers to itself: ${[...this.viewStack, name].join(' -> ')}`, { span });
    }
    return new BinderContext(this.catalog, this.functions, new Map(), [...this.viewStack, name], [], this.timeZone);
  }
}
