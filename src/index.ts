/** weir's public API. */
export { createEngine, Engine, type EngineOptions, type ScriptStep } from './engine/engine.js';
export { JobHandle, type JobStatus } from './engine/job-handle.js';
export type { StatementResult } from './engine/statement-result.js';
export { WeirError, renderError, type ErrorCode } from './common/errors.js';
export { RowKind } from './common/row-kind.js';
