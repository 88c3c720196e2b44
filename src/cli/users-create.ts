import { parseArgs } from "node:util";
import { pino } from "pino";
import type { Config } from "../config.js";
import { createUser, type Plan } from "../domain/users/create-user.js";
import { systemClock } from "../lib/clock.js";
import { createContext } from "../main.js";
import { openStore } from "../store/store.js";

/** `sluice users create`: opens the database directly and prints the new account as JSON. */
export async function createUsersCommand(args: string[], config: Config): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { username: { type: "string" }, email: { type: "string" }, plan: { type: "string", default: "free" } },
  });
  if (!values.username || !values.email) throw Object.assign(new Error("--username and --email are required"), { name: "ServiceError" });
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const ctx = createContext(store, { clock: systemClock, logger: pino({ level: "silent" }), config });
    const user = await createUser({ ctx, input: { username: values.username, email: values.email, plan: values.plan as Plan } });
    console.log(JSON.stringify({ data: user }, null, 2));
  } finally {
    await store.close();
  }
}
