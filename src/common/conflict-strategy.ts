/**
 * How a sink resolves rows of its query that share the sink's primary key (Flink 2.3's
 * `ON CONFLICT`, FLIP-558), shared by the planner and the job graph: `DEDUPLICATE` keeps the row
 * that came last, `NOTHING` the one that came first, `ERROR` fails the job when two rows of one
 * key are present together.
 */
export type ConflictStrategy = 'NOTHING' | 'ERROR' | 'DEDUPLICATE';
