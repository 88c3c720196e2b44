// What a context remembers between calls: caches of rows, memos that can go stale, and
// listeners. The composition root makes it with the context (createContext in main.ts), so two
// apps started in one process share none of it. Each part says in its own file what it holds.
import { CommittedDeliveries } from "./deliveries/committed-deliveries.js";
import { LiveEvents } from "./events/event-bus.js";
import { SummaryPageCache } from "./events/summary-page-cache.js";
import { RunnableSourceCache } from "./sources/runnable-source-cache.js";
import { QuotaMemo } from "./usage/quota-memo.js";

export interface InProcessState {
  /** Sources ready to run, by id and endpoint key (runnable-source.ts). */
  runnableSources: RunnableSourceCache;
  /** Plans and far-below-quota marks of accounts (quota.ts). */
  quotaMemo: QuotaMemo;
  /** The chain of executions waiting for each stateful source (source-lock.ts). */
  sourceLocks: Map<string, Promise<unknown>>;
  /** SQLite: summary pages recently sent (summary-page-cache.ts). */
  summaryPages: SummaryPageCache;
  /** SQLite: emitters this process stored events of, whose newest id it need not read (append-events.ts). */
  emittersWrittenHere: Set<string>;
  /** Wake-ups of live tails after events commit (event-bus.ts). */
  liveEvents: LiveEvents;
  /** Deliveries just committed, for the delivery worker (committed-deliveries.ts). */
  committedDeliveries: CommittedDeliveries;
  /** OAuth refreshes under way, by connected account: callers share one (accounts/oauth-refresh.ts). */
  oauthRefreshes: Map<string, Promise<Record<string, unknown>>>;
}

export function newInProcessState(): InProcessState {
  return {
    runnableSources: new RunnableSourceCache(),
    quotaMemo: new QuotaMemo(),
    sourceLocks: new Map(),
    summaryPages: new SummaryPageCache(),
    emittersWrittenHere: new Set(),
    liveEvents: new LiveEvents(),
    committedDeliveries: new CommittedDeliveries(),
    oauthRefreshes: new Map(),
  };
}
