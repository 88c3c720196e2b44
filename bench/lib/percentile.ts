// The p-th percentile of values sorted ascending (nearest rank).
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sorted copy, for percentile(). */
export const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
