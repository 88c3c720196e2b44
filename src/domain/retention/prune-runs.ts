// Workflow runs are kept as long as deliveries: a run that ended before the cutoff goes, with
// its steps and any links left, in batches like the rest of retention. Running and paused runs
// are never touched, however old (a suspend may last long).
import type { Ctx } from "../context.js";

export async function pruneRuns(
  ctx: Pick<Ctx, "db">,
  cutoff: number,
  batchSize: number,
  pause: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<{ runs: number; batches: number }> {
  const counts = { runs: 0, batches: 0 };
  while (!signal?.aborted) {
    const rows = await ctx.db
      .selectFrom("workflow_runs")
      .select("id")
      .where("ended_at", "<", cutoff)
      .where("status", "in", ["succeeded", "failed", "cancelled"])
      .orderBy("ended_at")
      .limit(batchSize)
      .execute();
    if (rows.length === 0) break;
    const ids = rows.map((row) => row.id);
    await ctx.db.transaction().execute(async (tx) => {
      await tx.deleteFrom("workflow_run_links").where("run_id", "in", ids).execute();
      await tx.deleteFrom("workflow_run_steps").where("run_id", "in", ids).execute();
      const deleted = await tx.deleteFrom("workflow_runs").where("id", "in", ids).executeTakeFirst();
      counts.runs += Number(deleted.numDeletedRows);
    });
    counts.batches++;
    await pause();
    if (rows.length < batchSize) break;
  }
  return counts;
}
