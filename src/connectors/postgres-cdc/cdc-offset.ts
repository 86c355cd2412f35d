/**
 * The position a CDC source records in a checkpoint: the slot it reads and the WAL position after
 * the last whole transaction it emitted (a commit's end, or a point the server reported as fully
 * sent). A checkpoint is never taken inside the initial snapshot, so the phase is always `stream`
 * in a restorable offset.
 */
import { WeirError } from '../../common/errors.js';
import { formatLsn, parseLsn, type Lsn } from './lsn-format.js';

/** The JSON form kept in checkpoints. */
export interface CdcOffset {
  readonly phase: 'snapshot' | 'stream';
  readonly slot: string;
  /** `hi/lo`; absent in the snapshot phase. */
  readonly lsn?: string;
}

/** The offset of a streaming source at `lsn`. */
export function streamOffset(slot: string, lsn: Lsn): CdcOffset {
  return { phase: 'stream', slot, lsn: formatLsn(lsn) };
}

/** The position to resume from; throws CONNECTOR_ERROR when the offset is not one a streaming source recorded for `slot`. */
export function resumePosition(offset: unknown, slot: string, label: string): Lsn {
  const { phase, slot: recorded, lsn } = (offset ?? {}) as Partial<CdcOffset>;
  if (phase === 'snapshot') {
    throw new WeirError('CONNECTOR_ERROR', `${label} cannot resume inside its initial snapshot: the snapshot ended with the process that took it`, {
      hint: 'start the job without its checkpoint, so that it takes a new snapshot',
    });
  }
  if (phase !== 'stream' || typeof recorded !== 'string' || typeof lsn !== 'string') {
    throw new WeirError('CONNECTOR_ERROR', `${label} cannot resume from offset ${JSON.stringify(offset)}: expected { phase: 'stream', slot, lsn }`);
  }
  if (recorded !== slot) {
    throw new WeirError('CONNECTOR_ERROR', `${label} was checkpointed reading slot '${recorded}', but its 'slot.name' is now '${slot}'`, {
      hint: `set 'slot.name' = '${recorded}' to resume, or start the job without its checkpoint`,
    });
  }
  return parseLsn(lsn, `${label}: the checkpointed position`);
}
