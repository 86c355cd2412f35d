/** weir's public API. */
export {
  createEngine,
  Engine,
  FunctionRegistry,
  type Change,
  type EngineOptions,
  type QueryOptions,
  type ScriptStep,
  type UserScalarFunction,
  type UserTableFunction,
} from './engine/engine.js';
export type { RestoreReport } from './engine/session.js';
export { LocalZonedTimestamp, PreciseTimestamp, type ApiRow } from './engine/api-values.js';
export { JobHandle, type CheckpointRecord, type JobProgress, type JobStatus, type OperatorMetrics } from './engine/job-handle.js';
export type { MetricsEndpoint, MetricsEndpointOptions } from './engine/metrics-server.js';
export type { StatementResult } from './engine/statement-result.js';
export { WeirError, renderError, type ErrorCode } from './common/errors.js';
export { RowKind } from './common/row-kind.js';
