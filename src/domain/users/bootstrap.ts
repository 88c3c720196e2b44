import type { Ctx } from "../context.js";
import { createUser } from "./create-user.js";

/**
 * First start: with no user yet, make one. Its key is SLUICE_BOOTSTRAP_API_KEY when set,
 * otherwise a generated key that is returned so the caller can print it once.
 */
export async function bootstrapFirstUser({ ctx }: { ctx: Ctx }): Promise<{ apiKey: string; generated: boolean } | undefined> {
  const any = await ctx.db.selectFrom("users").select("id").limit(1).executeTakeFirst();
  if (any) return undefined;
  const user = await createUser({
    ctx,
    input: { username: "admin", email: "admin@localhost", plan: "paid", apiKey: ctx.config.bootstrapApiKey },
  });
  return { apiKey: user.api_key, generated: !ctx.config.bootstrapApiKey };
}
