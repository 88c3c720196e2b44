// What every domain verb receives: its dependencies, passed explicitly (no env). The
// composition root (main.ts) builds it once; a transaction runs verbs on a copy with its `db`
// (the copy shares the context's in-process state: the same caches and listeners).
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Clock } from "../lib/clock.js";
import type { Metrics } from "../lib/metrics.js";
import type { Database } from "../store/schema.js";
import type { StorageDialect } from "../store/storage-dialect.js";
import type { InProcessState } from "./in-process-state.js";
import type { AuthCache } from "./users/auth-cache.js";
import type { EventLimits } from "./events/event-limits.js";
import type { LookupFunction } from "../egress/egress-target.js";
import type { AddressSet } from "../egress/egress-guard.js";

/** No globals: what the domain remembers between calls is the context's (InProcessState). */
export interface Ctx extends InProcessState {
  /** The database or an open transaction: verbs run the same inside or outside one. */
  db: Kysely<Database>;
  /** Every SQLite/PostgreSQL difference outside the queue (store/storage-dialect.ts). */
  storage: StorageDialect;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** This instance's Prometheus metrics (lib/metrics.ts). */
  metrics: Metrics;
  /** Work done in the transaction that makes an account (create-user.ts). */
  userCreatedHooks: readonly UserCreatedHook[];
  /** API keys that authenticated in the last few seconds, in this process (users/auth-cache.ts). */
  authCache: AuthCache;
  /** What emitters and accounts may store, with this process's view of usage (events/event-limits.ts). */
  eventLimits: EventLimits;
  /** Key of connected accounts' credentials (accounts/credential-key.ts); absent in CLI commands that need none. */
  credentialKey?: Buffer;
  /** How names are resolved for the egress checks verbs make (a webhook's URL); the system's DNS when absent, a table in tests. */
  lookup?: LookupFunction;
  /** The host's own addresses, refused by those checks; the real interfaces when absent, a list in tests. */
  hostAddresses?: AddressSet;
}

/** Work that must happen whenever an account is made (e.g. its global error workflow). */
export type UserCreatedHook = (ctx: Ctx, userId: string) => Promise<void>;

/** The account a request acts for. */
export interface Actor {
  userId: string;
  /** The API key it authenticated with. */
  keyId?: string;
}
