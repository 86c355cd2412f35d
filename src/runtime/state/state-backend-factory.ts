/**
 * Creates the keyed state backend of a subtask. `hashmap` is the heap backend (the default);
 * `lmdb` the disk backend (lmdb-state-backend.ts), which users select with `state.backend.type` =
 * `rocksdb` (Flink's name) or `lmdb`; `copying` is the contract-checking backend
 * (copying-state-backend.ts), for tests only. The environment variable `WEIR_TEST_STATE_BACKEND`
 * (`hashmap`, `copying` or `lmdb`; read by the engine and the operator test harness) runs whole
 * test suites under another backend: it replaces the default `hashmap`, never a backend a job
 * asked for. All of them snapshot and restore the same files.
 */
import { CopyingStateBackend } from './copying-state-backend.js';
import { LmdbStateBackend, type LmdbStateBackendOptions } from './lmdb-state-backend.js';
import { MemoryStateBackend, type MemoryStateBackendOptions, type StateTtlOptions } from './memory-state-backend.js';
import type { SnapshottingStateBackend } from './snapshotting-state-backend.js';

/** The kinds of keyed state backend that can be created. */
export type StateBackendKind = 'hashmap' | 'copying' | 'lmdb';

/** The environment variable that selects the backend for tests. */
export const TEST_STATE_BACKEND_ENV = 'WEIR_TEST_STATE_BACKEND';

/** The values `state.backend.type` accepts, with the backend each selects. */
export const STATE_BACKEND_TYPES: Readonly<Record<string, StateBackendKind>> = { hashmap: 'hashmap', rocksdb: 'lmdb', lmdb: 'lmdb' };

/** The backend kind `WEIR_TEST_STATE_BACKEND` asks for (`hashmap` when unset); throws on any other value. */
export function stateBackendKindFromEnv(env: NodeJS.ProcessEnv = process.env): StateBackendKind {
  const value = env[TEST_STATE_BACKEND_ENV];
  if (value === undefined || value === '' || value === 'hashmap') return 'hashmap';
  if (value === 'copying' || value === 'lmdb') return value;
  throw new Error(`${TEST_STATE_BACKEND_ENV} must be 'hashmap', 'copying' or 'lmdb', got '${value}'`);
}

/** How any backend is set up: the heap backend's options and the disk backend's. */
export type StateBackendOptions = MemoryStateBackendOptions & Omit<LmdbStateBackendOptions, keyof MemoryStateBackendOptions>;

/** A new, empty keyed state backend of the given kind. */
export function createStateBackend(kind: StateBackendKind, options: StateBackendOptions | StateTtlOptions = {}): SnapshottingStateBackend {
  const normalized: StateBackendOptions = 'ttlMillis' in options ? { ttl: options } : options;
  switch (kind) {
    case 'hashmap':
      return new MemoryStateBackend(normalized);
    case 'copying':
      return new CopyingStateBackend(normalized);
    case 'lmdb':
      return new LmdbStateBackend(normalized);
    default: {
      const unknownKind: never = kind;
      throw new Error(`unknown state backend kind '${String(unknownKind)}'`);
    }
  }
}
