// `sluice users create|rotate-key` work on the database the environment names, with no server
// running: the domain verbs, run in this process through main.ts's direct context.
import { pino } from "pino";
import type { Config } from "../config.js";
import { createUser, type CreatedUser, type CreateUserInput } from "../domain/users/create-user.js";
import { rotateApiKey, type RotatedAccount } from "../domain/users/manage-api-keys.js";
import { withDirectContext } from "../main.js";

// These commands print only their result; nothing else is worth a line.
const silent = () => pino({ level: "silent" });

export function createUserDirectly(config: Config, input: CreateUserInput): Promise<CreatedUser> {
  return withDirectContext(config, silent(), (ctx) => createUser({ ctx, input }));
}

/** The account's new key in full; its other keys are revoked. */
export async function rotateKeyDirectly(config: Config, account: RotatedAccount): Promise<string> {
  const key = await withDirectContext(config, silent(), (ctx) => rotateApiKey({ ctx, input: account }));
  return key.api_key;
}
