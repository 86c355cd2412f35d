/** weir's public API. */
export { createEngine, Engine, type Change, type EngineOptions, type QueryOptions, type ScriptStep } from './engine/engine.js';
export type { RestoreReport } from './engine/session.js';
export type { ApiRow } from './engine/api-values.js';
export { JobHandle, type JobStatus } from './engine/job-handle.js';
export type { StatementResult } from './engine/statement-result.js';
export { WeirError, renderError, type ErrorCode } from './common/errors.js';
export { RowKind } from './common/row-kind.js';
