/**
 * The public entry point: `createEngine()` gives a session with the built-in connectors and
 * functions, able to run statements and scripts.
 */
import { builtinConnectors } from '../connectors/builtin-connectors.js';
import type { Connector } from '../connectors/api/connector.js';
import type { FunctionRegistry } from '../expr/function-registry.js';
import type { ParsedStatement } from '../sql/parse/ast.js';
import { Session } from './session.js';
import type { StatementResult } from './statement-result.js';

/** Options of {@link createEngine}. */
export interface EngineOptions {
  /** Connectors besides the built-in ones. */
  readonly connectors?: readonly Connector[];
  readonly functions?: FunctionRegistry;
  readonly onWarning?: (message: string) => void;
  /** Discard existing checkpoints of the jobs started, instead of resuming from them. */
  readonly fresh?: boolean;
}

/** A statement of a script with what it gave. */
export interface ScriptStep {
  readonly statement: ParsedStatement;
  readonly result: StatementResult;
}

/** An engine: one session, its catalog and its jobs. */
export class Engine {
  readonly session: Session;

  constructor(options: EngineOptions = {}) {
    this.session = new Session({ ...options, connectors: [...builtinConnectors, ...(options.connectors ?? [])] });
  }

  /** Executes every statement of `sql` in order; returns what each gave. Stops at the first error. */
  async execute(sql: string): Promise<StatementResult[]> {
    const results: StatementResult[] = [];
    for await (const step of this.executeScript(sql)) results.push(step.result);
    return results;
  }

  /** Executes a script statement by statement, yielding each result as it is available. */
  async *executeScript(sql: string): AsyncGenerator<ScriptStep> {
    for (const statement of this.session.parse(sql)) {
      yield { statement, result: await this.session.execute(statement) };
    }
  }

  /** Cancels every running job. */
  async close(): Promise<void> {
    for (const job of this.session.jobs()) await job.cancel();
  }
}

/** Creates an engine with the built-in connectors and functions. */
export function createEngine(options: EngineOptions = {}): Engine {
  return new Engine(options);
}
