// What a context remembers of accounts' quotas between requests (quota.ts reads and fills it).
export class QuotaMemo {
  /** Each account's plan, read at most once a minute. */
  readonly plans = new Map<string, { plan: string; at: number }>();
  /** Accounts far below both daily quotas at their last read, with that day. */
  readonly farBelow = new Map<string, { day: string; at: number }>();
}
