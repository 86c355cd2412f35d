/**
 * Atomic commits across sinks: the exactly-once postgres sinks of one job run that write to the
 * same database (and name the same `'sink.transaction-group'`, `default` unless told otherwise) write
 * each checkpoint in ONE transaction, prepared once every member has reached the barrier and
 * committed with one COMMIT PREPARED. A reader therefore never sees one table a checkpoint ahead of
 * another: either every table of the group shows checkpoint n, or none does.
 *
 * Each member still writes its own marker row (job, sink, subtask, checkpoint) with the group's
 * gid, so that each member's commit and recovery work as for a sink alone: the first member to
 * commit a gid commits it, the others wait for that commit ({@link commitOnce}) instead of each
 * sending COMMIT PREPARED to find the gid gone and its marker present. The gid's sink field is
 * `group-<name>`; leftovers of that prefix are resolved once per group (see {@link resolveOnce}).
 * A group of one member uses the member's own gid, so a sink alone commits exactly as without it.
 *
 * Members are the writers open in this process. Barriers reach every sink of a job, so each round
 * fills up; a member that closes fails the rounds it has not joined, so that no member waits forever.
 * A member may join a running group between two checkpoints (a part added to the running job):
 * no round is open then, and the next round waits for it too.
 */
import type { Compilable } from 'kysely';
import { WeirError } from '../../common/errors.js';
import { newEpoch } from './transaction-ids.js';
import type { TransactionSession } from './transaction-session.js';

/** What one member brings to the group's transaction of one checkpoint. */
export interface GroupContribution {
  /** The member's own gid, used when it is the group's only member (a sink alone keeps its gids). */
  readonly ownGid: string;
  /** Its writes, then its marker row (built with the group's gid). */
  readonly statements: (gid: string) => readonly Compilable[];
  /** The session the group may use to run the transaction (the last member's runs it). */
  readonly session: TransactionSession;
}

/** Runs the group's transaction on a session: BEGIN, every member's statements, PREPARE gid. */
export type PrepareGroupTransaction = (session: TransactionSession, gid: string, statements: readonly Compilable[]) => Promise<void>;

interface Round {
  readonly contributions: Map<object, GroupContribution>;
  readonly waiting: { resolve(gid: string): void; reject(error: unknown): void }[];
}

/** One group of sinks (one job, one database, one group name). */
export class TransactionGroup {
  /** The random epoch of this group's gids: new for every run of the job. */
  readonly epoch = newEpoch();
  private readonly members = new Set<object>();
  private readonly rounds = new Map<number, Round>();
  /** The commits of the group's gids under way or done, by gid, with their checkpoints (recent ones only). */
  private readonly commits = new Map<string, { readonly checkpointId: number; readonly done: Promise<void> }>();
  private resolution: Promise<void> | undefined;

  private constructor(
    private readonly dissolve: () => void,
    private readonly gidOf: (checkpointId: number, epoch: string) => string,
    private readonly prepare: PrepareGroupTransaction,
  ) {}

  /**
   * Joins `member` to the group `name` of the job run `run`, creating the group when it is the
   * first: `gidOf` names the group's transaction of a checkpoint, `prepare` runs it.
   */
  static join(run: object, name: string, member: object, gidOf: (checkpointId: number, epoch: string) => string, prepare: PrepareGroupTransaction): TransactionGroup {
    let byName = groups.get(run);
    if (byName === undefined) {
      byName = new Map();
      groups.set(run, byName);
    }
    let group = byName.get(name);
    if (group === undefined) {
      group = new TransactionGroup(() => byName.delete(name), gidOf, prepare);
      byName.set(name, group);
    }
    group.members.add(member);
    return group;
  }

  /** How many members the group has now. */
  get size(): number {
    return this.members.size;
  }

  /** Leaves the group; rounds still waiting for this member fail. The last member dissolves the group. */
  leave(member: object): void {
    if (!this.members.delete(member)) return;
    for (const [checkpointId, round] of this.rounds) {
      if (round.contributions.has(member)) continue;
      this.rounds.delete(checkpointId);
      const error = new WeirError('CONNECTOR_ERROR', `the transaction of checkpoint ${checkpointId} was abandoned: a sink of its group closed before the checkpoint reached it`);
      for (const waiter of round.waiting) waiter.reject(error);
    }
    if (this.members.size === 0) this.dissolve();
    else this.completeRounds();
  }

  /**
   * Adds the member's part of checkpoint `checkpointId`; resolves with the gid once the group's
   * transaction holding every member's part is prepared (on the session of the member that
   * completed the round), rejects when it failed.
   */
  contribute(checkpointId: number, member: object, contribution: GroupContribution): Promise<string> {
    let round = this.rounds.get(checkpointId);
    if (round === undefined) {
      round = { contributions: new Map(), waiting: [] };
      this.rounds.set(checkpointId, round);
    }
    round.contributions.set(member, contribution);
    const done = new Promise<string>((resolve, reject) => round.waiting.push({ resolve, reject }));
    this.completeRounds();
    return done;
  }

  /**
   * Runs `task` once for the group (resolving the leftovers of its gid prefix); members calling
   * later wait for the same run.
   */
  resolveOnce(task: () => Promise<void>): Promise<void> {
    this.resolution ??= task();
    return this.resolution;
  }

  /**
   * Runs `commit` (COMMIT PREPARED of the group's `gid`, prepared for `checkpointId`) once for all
   * members: a member calling later waits for the same commit and shares its outcome. A failed
   * commit is forgotten, so that the next call tries again. Commits more than
   * {@link REMEMBERED_CHECKPOINTS} checkpoints older than the newest are forgotten (members commit
   * in checkpoint order and at most a few checkpoints apart).
   */
  commitOnce(gid: string, checkpointId: number, commit: () => Promise<unknown>): Promise<void> {
    const known = this.commits.get(gid);
    if (known !== undefined) return known.done;
    const done = commit().then(
      () => undefined,
      (error: unknown) => {
        if (this.commits.get(gid)?.done === done) this.commits.delete(gid);
        throw error;
      },
    );
    this.commits.set(gid, { checkpointId, done });
    for (const [old, { checkpointId: id }] of this.commits) if (id < checkpointId - REMEMBERED_CHECKPOINTS) this.commits.delete(old);
    return done;
  }

  private completeRounds(): void {
    for (const [checkpointId, round] of this.rounds) {
      if (![...this.members].every((m) => round.contributions.has(m))) continue;
      this.rounds.delete(checkpointId);
      const parts = [...round.contributions.values()];
      const gid = parts.length === 1 ? parts[0]!.ownGid : this.gidOf(checkpointId, this.epoch);
      const statements = parts.flatMap((part) => part.statements(gid));
      // A member that was alone until the others joined (a materialized view added to the running
      // job) may have opened the transaction with early writes: the group's transaction continues it.
      const session = parts.find((part) => part.session.inTransaction)?.session ?? parts[parts.length - 1]!.session;
      this.prepare(session, gid, statements).then(
        () => round.waiting.forEach((w) => w.resolve(gid)),
        (error: unknown) => round.waiting.forEach((w) => w.reject(error)),
      );
    }
  }
}

/** How many checkpoints back {@link TransactionGroup.commitOnce} remembers a commit. */
const REMEMBERED_CHECKPOINTS = 16;

/** The groups of each job run (the run object is the job execution; see SinkContext.run). */
const groups = new WeakMap<object, Map<string, TransactionGroup>>();
