/**
 * Name resolution for one relation: the columns a query block can see, each with the table alias
 * that qualifies it. Resolves `c`, `t.c`, `c.field`, `t.c.field` (ROW field access).
 */
import { closestName, WeirError, type SourceSpan } from '../../common/errors.js';
import type { SqlType } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import type { Identifier } from '../parse/ast.js';

/** A column visible in a scope. */
export interface ScopeColumn {
  /** The alias or name of the relation the column comes from (undefined for derived columns without one). */
  readonly qualifier: string | undefined;
  readonly name: string;
  readonly type: SqlType;
  /**
   * A column of a join input that `USING` or `NATURAL` merged into one output column: reachable
   * only qualified (`a.k`), and not part of an unqualified `*` (a qualified `a.*` includes it).
   */
  readonly merged?: true;
}

/** The columns of the relation a query block reads, in input order. */
export class Scope {
  constructor(readonly columns: readonly ScopeColumn[]) {}

  /** A scope whose columns all get the given qualifier (a FROM item's alias). */
  static of(columns: readonly { name: string; type: SqlType }[], qualifier: string | undefined): Scope {
    return new Scope(columns.map((c) => ({ qualifier, name: c.name, type: c.type })));
  }

  /** The columns of two scopes side by side (a join). */
  concat(other: Scope): Scope {
    return new Scope([...this.columns, ...other.columns]);
  }

  /** Resolves a possibly qualified name with optional ROW field access into an expression. */
  resolve(parts: readonly Identifier[], span: SourceSpan): ScalarExpr {
    const [first, second] = parts;
    if (first === undefined) throw new WeirError('INTERNAL_ERROR', 'empty column reference');
    if (parts.length >= 2 && this.hasQualifier(first.name)) {
      const index = this.find(second!.name, first.name, second!.span);
      return accessFields(Exprs.inputRef(index, this.columns[index]!.type), parts.slice(2));
    }
    if (parts.length >= 2 && !this.columns.some((c) => c.name === first.name || c.name.toLowerCase() === first.name.toLowerCase())) {
      // weir's extension (the published Nexmark q6 needs it): in a FROM of one subquery without an
      // alias, `t.c` names column c of the subquery, t being a table inside it.
      if (this.columns.length > 0 && this.columns.every((c) => c.qualifier === undefined) && this.columns.some((c) => sameName(c.name, second!.name))) {
        const index = this.find(second!.name, undefined, second!.span);
        return accessFields(Exprs.inputRef(index, this.columns[index]!.type), parts.slice(2));
      }
      throw new WeirError('UNKNOWN_TABLE', `table '${first.name}' is not in the FROM clause`, { span: first.span, hint: this.qualifierHint(first.name) });
    }
    const index = this.find(first.name, undefined, span);
    return accessFields(Exprs.inputRef(index, this.columns[index]!.type), parts.slice(1));
  }

  /** Indexes of the columns of a qualifier (for `t.*`), or all columns when undefined. */
  columnsOf(qualifier: string | undefined, span: SourceSpan): number[] {
    if (qualifier === undefined) return this.columns.flatMap((c, i) => (c.merged === true ? [] : [i]));
    if (!this.hasQualifier(qualifier)) {
      throw new WeirError('UNKNOWN_TABLE', `table '${qualifier}' is not in the FROM clause`, { span, hint: this.qualifierHint(qualifier) });
    }
    const matches = this.columns.map((c, i) => [c, i] as const).filter(([c]) => sameName(c.qualifier, qualifier));
    return matches.map(([, i]) => i);
  }

  /** Whether `name` qualifies columns of this scope (a table or an alias in the FROM clause). */
  isQualifier(name: string): boolean {
    return this.hasQualifier(name);
  }

  private hasQualifier(name: string): boolean {
    return this.columns.some((c) => c.qualifier === name) || this.columns.some((c) => sameName(c.qualifier, name));
  }

  private find(name: string, qualifier: string | undefined, span: SourceSpan): number {
    const candidates = this.columns.map((c, i) => [c, i] as const).filter(([c]) => (qualifier === undefined ? c.merged !== true : sameName(c.qualifier, qualifier)));
    const exact = candidates.filter(([c]) => c.name === name);
    const matches = exact.length > 0 ? exact : candidates.filter(([c]) => c.name.toLowerCase() === name.toLowerCase());
    if (matches.length === 1) return matches[0]![1];
    const shown = qualifier === undefined ? name : `${qualifier}.${name}`;
    if (matches.length > 1) {
      throw new WeirError('AMBIGUOUS_COLUMN', `column reference '${shown}' is ambiguous`, {
        span,
        hint: `qualify it: ${matches.map(([c]) => `${c.qualifier ?? '?'}.${c.name}`).join(' or ')}`,
      });
    }
    const suggestion = closestName(name, candidates.map(([c]) => c.name));
    throw new WeirError('UNKNOWN_COLUMN', `column '${shown}' does not exist`, {
      span,
      hint: suggestion !== undefined ? `did you mean '${suggestion}'?` : undefined,
    });
  }

  private qualifierHint(name: string): string | undefined {
    const qualifiers = [...new Set(this.columns.map((c) => c.qualifier).filter((q): q is string => q !== undefined))];
    const suggestion = closestName(name, qualifiers);
    return suggestion !== undefined ? `did you mean '${suggestion}'?` : undefined;
  }
}

function sameName(a: string | undefined, b: string): boolean {
  return a !== undefined && (a === b || a.toLowerCase() === b.toLowerCase());
}

/** Applies `.field` accesses to a ROW-typed expression. */
export function accessFields(expr: ScalarExpr, fields: readonly Identifier[]): ScalarExpr {
  let current = expr;
  for (const field of fields) {
    const type = current.type;
    if (type.kind !== 'ROW') {
      throw new WeirError('UNKNOWN_COLUMN', `cannot access field '${field.name}' of a value of type ${type.kind}`, { span: field.span });
    }
    let index = type.fields.findIndex((f) => f.name === field.name);
    if (index < 0) index = type.fields.findIndex((f) => f.name.toLowerCase() === field.name.toLowerCase());
    if (index < 0) {
      const suggestion = closestName(field.name, type.fields.map((f) => f.name));
      throw new WeirError('UNKNOWN_COLUMN', `field '${field.name}' does not exist in ROW<${type.fields.map((f) => f.name).join(', ')}>`, {
        span: field.span,
        hint: suggestion !== undefined ? `did you mean '${suggestion}'?` : undefined,
      });
    }
    const fieldType = type.fields[index]!.type;
    const nullable = type.nullable || fieldType.nullable;
    current = Exprs.field(current, index, nullable === fieldType.nullable ? fieldType : ({ ...fieldType, nullable } as SqlType));
  }
  return current;
}
