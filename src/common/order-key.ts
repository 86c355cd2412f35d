/** One key of an ordering: a column, ascending or descending; shared by the plan and the job graph. */
export interface OrderKey {
  readonly index: number;
  readonly descending: boolean;
}
