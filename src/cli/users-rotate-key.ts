import { parseArgs } from "node:util";
import { pino } from "pino";
import type { Config } from "../config.js";
import { rotateApiKey } from "../domain/users/manage-api-keys.js";
import { systemClock } from "../lib/clock.js";
import { createContext } from "../main.js";
import { openStore } from "../store/store.js";

const usageError = (message: string) => Object.assign(new Error(message), { name: "ServiceError" });

/**
 * `sluice users rotate-key`: opens the database directly, gives the account a new key, revokes
 * its other keys and prints the new one. Running servers refuse the old keys within 5 s.
 */
export async function rotateKeyCommand(args: string[], config: Config): Promise<void> {
  const { values } = parseArgs({ args, options: { username: { type: "string" }, id: { type: "string" } } });
  if (!values.username === !values.id) throw usageError("give either --username or --id");
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const ctx = createContext(store, { clock: systemClock, logger: pino({ level: "silent" }), config });
    const user = await ctx.db
      .selectFrom("users")
      .select("id")
      .where(values.id ? "id" : "username", "=", (values.id ?? values.username) as string)
      .executeTakeFirst();
    if (!user) throw usageError(`no account ${values.id ? `with id ${values.id}` : `named "${values.username}"`}`);
    const key = await rotateApiKey({ ctx, input: { userId: user.id } });
    console.log(key.api_key);
  } finally {
    await store.close();
  }
}
