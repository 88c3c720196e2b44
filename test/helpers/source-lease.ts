// A run releases its lease on the source row just after its events commit; on PostgreSQL a
// claim meanwhile skips the locked row (the scheduler's next look fires it), so a test that
// claims again right after a run waits for the release.
import type { TestApp } from "./test-app.js";
import { waitFor } from "./wait-for.js";

export async function waitForLeaseRelease(app: TestApp, sourceId: string): Promise<void> {
  const db = app.sluice.services.ctx.db;
  await waitFor(
    async () => {
      const row = await db.selectFrom("sources").select("run_lock_until").where("id", "=", sourceId).executeTakeFirst();
      return row?.run_lock_until === null || row?.run_lock_until === undefined;
    },
    { what: `the run of ${sourceId} to release its lease`, intervalMs: 20 },
  );
}
