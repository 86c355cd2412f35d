/**
 * Flink's published Nexmark throughput per core (events/s/core), from nexmark/nexmark's
 * GUIDE_V1.md and GUIDE_V2.md example tables as quoted in shared/nexmark/NUMBERS.md §1 (8
 * TaskManagers, parallelism 8, measured cores, generator included; q6 and q23 not published).
 */

/** Per query: V1 (100 M events, 10 M/s event-time rate) and V2 (50 M measured after 150 M warm-up). */
export const FLINK_PER_CORE: Readonly<Record<string, { readonly v1: number; readonly v2: number }>> = {
  q0: { v1: 155_000, v2: 378_400 },
  q1: { v1: 157_900, v2: 395_500 },
  q2: { v1: 175_200, v2: 414_300 },
  q3: { v1: 152_100, v2: 219_200 },
  q4: { v1: 34_300, v2: 28_200 },
  q5: { v1: 22_100, v2: 74_500 },
  q7: { v1: 12_300, v2: 22_900 },
  q8: { v1: 146_100, v2: 162_400 },
  q9: { v1: 14_200, v2: 13_800 },
  q10: { v1: 57_800, v2: 132_800 },
  q11: { v1: 39_700, v2: 46_100 },
  q12: { v1: 75_700, v2: 194_300 },
  q13: { v1: 130_700, v2: 188_200 },
  q14: { v1: 161_200, v2: 258_900 },
  q15: { v1: 72_400, v2: 168_200 },
  q16: { v1: 18_600, v2: 45_200 },
  q17: { v1: 116_800, v2: 161_000 },
  q18: { v1: 53_700, v2: 65_400 },
  q19: { v1: 44_000, v2: 42_700 },
  q20: { v1: 19_000, v2: 17_800 },
  q21: { v1: 98_500, v2: 147_200 },
  q22: { v1: 130_000, v2: 211_300 },
};
