// What every domain verb receives: its dependencies, passed explicitly (no globals, no env).
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../store/schema.js";
import type { DialectName } from "../store/store.js";

export interface Ctx {
  /** The database or an open transaction: verbs run the same inside or outside one. */
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  logger: Logger;
  config: Config;
}

/** The account a request acts for. */
export interface Actor {
  userId: string;
}
