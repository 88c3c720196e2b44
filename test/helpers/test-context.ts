// A domain context for tests below the HTTP API, made by the composition root's own
// `createContext`, so it has every field the service's has and cannot drift from it. Tests
// choose the clock, logger and configuration; anything else they change is named here.
import { pino } from "pino";
import { loadConfig } from "../../src/config.js";
import type { Ctx } from "../../src/domain/context.js";
import { systemClock } from "../../src/lib/clock.js";
import { createContext } from "../../src/main.js";
import type { Store } from "../../src/store/store.js";

export interface TestContextOptions extends Partial<
  Pick<Ctx, "clock" | "logger" | "config" | "credentialKey" | "metrics" | "userCreatedHooks">
> {
  /** The database handle (default the store's): a transaction, or a connection that logs. */
  db?: Ctx["db"];
}

export function testContext(store: Store, options: TestContextOptions = {}): Ctx {
  const ctx = createContext(store, {
    clock: options.clock ?? systemClock,
    logger: options.logger ?? pino({ level: "silent" }),
    config: options.config ?? loadConfig({}),
    credentialKey: options.credentialKey,
    metrics: options.metrics,
  });
  if (options.userCreatedHooks) ctx.userCreatedHooks = options.userCreatedHooks;
  if (options.db) ctx.db = options.db;
  return ctx;
}
