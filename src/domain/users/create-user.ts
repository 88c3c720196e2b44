import type { Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { isUniqueViolation } from "../../store/unique-violation.js";
import { generateApiKey, hashApiKey, isWellFormedApiKey } from "./api-keys.js";

export type Plan = "free" | "paid";

export interface CreateUserInput {
  username: string;
  email: string;
  plan?: Plan;
  /** A key chosen by the operator (bootstrap); generated when absent. */
  apiKey?: string;
}

export interface CreatedUser {
  id: string;
  username: string;
  email: string;
  plan: Plan;
  api_key: string;
}

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export async function createUser({ ctx, input }: { ctx: Ctx; input: CreateUserInput }): Promise<CreatedUser> {
  const plan = input.plan ?? "free";
  if (!USERNAME.test(input.username)) invalidate("username must be 1-64 letters, digits, '_', '.' or '-'");
  if (!EMAIL.test(input.email)) invalidate("email is not a valid address");
  if (plan !== "free" && plan !== "paid") invalidate('plan must be "free" or "paid"');
  const apiKey = input.apiKey ?? generateApiKey();
  if (!isWellFormedApiKey(apiKey)) invalidate("api key must look like sk_sluice_ followed by 40 letters or digits");

  const now = ctx.clock.now();
  const id = newId("u");
  const taken = () => new ServiceError("CONFLICT", `username "${input.username}" is taken`);
  return ctx.db
    .transaction()
    .execute(async (db) => {
      const existing = await db.selectFrom("users").select("id").where("username", "=", input.username).executeTakeFirst();
      if (existing) throw taken();
      await db
        .insertInto("users")
        .values({ id, username: input.username, email: input.email, plan, created_at: now, updated_at: now })
        .execute();
      await db
        .insertInto("api_keys")
        .values({ id: newId("key"), user_id: id, key_hash: hashApiKey(apiKey), key_hint: apiKey.slice(-4), created_at: now })
        .execute();
      for (const hook of ctx.userCreatedHooks) await hook({ ...ctx, db }, id);
      return { id, username: input.username, email: input.email, plan, api_key: apiKey };
    })
    .catch((error: unknown) => {
      // Two requests (or two processes bootstrapping) raced past the check above.
      throw isUniqueViolation(error) ? taken() : error;
    });
}

function invalidate(message: string): never {
  throw invalid(message);
}
