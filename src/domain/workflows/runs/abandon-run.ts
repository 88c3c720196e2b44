// A run whose job or delivery is handed out again after its worker died, but whose workflow
// was deleted or deactivated meanwhile: nothing will drive it any more, so it ends cancelled
// instead of showing `running` for ever.
import type { Ctx } from "../../context.js";

export async function abandonRunOf(ctx: Ctx, origin: string | undefined): Promise<void> {
  if (!origin) return;
  const now = ctx.clock.now();
  const run = await ctx.db.selectFrom("workflow_runs").select(["id", "created_at"]).where("origin", "=", origin).executeTakeFirst();
  if (!run) return;
  await ctx.db
    .updateTable("workflow_runs")
    .set({ status: "cancelled", driver: null, driver_until: null, ended_at: now, duration_ms: Math.max(0, now - Number(run.created_at)) })
    .where("id", "=", run.id)
    .where("status", "=", "running")
    .where("driver", "=", origin)
    .execute();
}
