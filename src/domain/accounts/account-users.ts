// Which sources name a connected account in an app prop ({"authProvisionId": id}). The ids
// are random, so a text match finds the candidates; parsing confirms each.
import type { Ctx } from "../context.js";

export async function sourcesUsingAccount(ctx: Pick<Ctx, "db">, userId: string, accountId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom("sources")
    .select(["id", "configured_props"])
    .where("user_id", "=", userId)
    .where("configured_props", "like", `%"${accountId}"%`)
    .orderBy("id")
    .execute();
  return rows.filter((row) => namesAccount(JSON.parse(row.configured_props), accountId)).map((row) => row.id);
}

function namesAccount(configured: Record<string, unknown>, accountId: string): boolean {
  return Object.values(configured).some(
    (value) => value !== null && typeof value === "object" && (value as Record<string, unknown>).authProvisionId === accountId,
  );
}
