// What names a connected account: sources whose app prop holds {"authProvisionId": id}, and
// workflows whose steps hold one anywhere in their props. The ids are random, so a text match
// finds the candidates; parsing confirms each.
import type { Ctx } from "../context.js";

export interface AccountUser {
  kind: "source" | "workflow";
  id: string;
  name: string;
}

export async function sourcesUsingAccount(ctx: Pick<Ctx, "db">, userId: string, accountId: string): Promise<string[]> {
  return (await sourceUsers(ctx, userId, accountId)).map((user) => user.id);
}

/** Every source and workflow of the user that names the account, sources first. */
export async function accountUsers(ctx: Pick<Ctx, "db">, userId: string, accountId: string): Promise<AccountUser[]> {
  const workflows = await ctx.db
    .selectFrom("workflows")
    .select(["id", "name", "steps"])
    .where("user_id", "=", userId)
    .where("steps", "like", `%"${accountId}"%`)
    .orderBy("id")
    .execute();
  return [
    ...(await sourceUsers(ctx, userId, accountId)),
    ...workflows
      .filter((row) => holdsAccount(JSON.parse(row.steps), accountId, 0))
      .map((row) => ({ kind: "workflow" as const, id: row.id, name: row.name })),
  ];
}

/** "source "name" (dc_…), workflow "name" (p_…)" */
export const describeUsers = (users: AccountUser[]) => users.map((user) => `${user.kind} "${user.name}" (${user.id})`).join(", ");

async function sourceUsers(ctx: Pick<Ctx, "db">, userId: string, accountId: string): Promise<AccountUser[]> {
  const rows = await ctx.db
    .selectFrom("sources")
    .select(["id", "name", "configured_props"])
    .where("user_id", "=", userId)
    .where("configured_props", "like", `%"${accountId}"%`)
    .orderBy("id")
    .execute();
  return rows
    .filter((row) => namesAccount(JSON.parse(row.configured_props), accountId))
    .map((row) => ({ kind: "source" as const, id: row.id, name: row.name }));
}

function namesAccount(configured: Record<string, unknown>, accountId: string): boolean {
  return Object.values(configured).some(
    (value) => value !== null && typeof value === "object" && (value as Record<string, unknown>).authProvisionId === accountId,
  );
}

/** Whether {"authProvisionId": accountId} appears anywhere in a workflow's steps (bounded depth). */
function holdsAccount(value: unknown, accountId: string, depth: number): boolean {
  if (value === null || typeof value !== "object" || depth > 16) return false;
  if (!Array.isArray(value) && (value as Record<string, unknown>).authProvisionId === accountId) return true;
  return Object.values(value).some((child) => holdsAccount(child, accountId, depth + 1));
}
