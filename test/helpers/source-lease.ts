// A run releases its lease on the source row just after its events commit; on PostgreSQL a
// claim meanwhile skips the locked row (the scheduler's next look fires it), so a test that
// claims again right after a run waits for the release.
import type { TestApp } from "./test-app.js";

export async function waitForLeaseRelease(app: TestApp, sourceId: string): Promise<void> {
  const db = app.sluice.services.ctx.db;
  for (let i = 0; i < 500; i++) {
    const row = await db.selectFrom("sources").select("run_lock_until").where("id", "=", sourceId).executeTakeFirst();
    if (row?.run_lock_until === null || row?.run_lock_until === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the run of ${sourceId} kept its lease`);
}
