// Workflow runs: one row per run, one per step of it, written as the run goes (durable steps,
// docs/adr/0036-durable-workflow-runs-driven-step-by-step.md), and the hashes of the resume and
// cancel URLs a paused run gave out.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("workflow_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("workflow_id", "text", (c) => c.notNull())
    // The job or delivery that started the run: when it is handed out again (its worker died),
    // it finds its run here and continues it instead of starting another.
    .addColumn("origin", "text", (c) => c.unique())
    // Who drives the run now (a job's or delivery's origin key); null while paused or ended.
    .addColumn("driver", "text")
    // Until when a driver inside an HTTP request (no job) counts as alive: past it, a worker
    // takes the run over (its watch job, runs/adopt-run.ts).
    .addColumn("driver_until", "bigint")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("summary", "text")
    .addColumn("trigger_event", "text", (c) => c.notNull())
    .addColumn("trigger_kind", "text", (c) => c.notNull())
    .addColumn("context", "text", (c) => c.notNull())
    .addColumn("hops", "integer", (c) => c.notNull())
    // The steps as they were when the run started: a resumed run runs the code it started with.
    .addColumn("steps", "text", (c) => c.notNull())
    .addColumn("next_step", "integer", (c) => c.notNull())
    // Bumped each time the run pauses or is woken: a wake-up made for an older pause is stale.
    .addColumn("wake_seq", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("ended_at", "bigint")
    .addColumn("duration_ms", "integer")
    .execute();
  await db.schema.createIndex("workflow_runs_by_workflow").on("workflow_runs").columns(["workflow_id", "created_at", "id"]).execute();
  // Retention walks ended runs by their end.
  await db.schema.createIndex("workflow_runs_by_end").on("workflow_runs").columns(["ended_at"]).execute();

  await db.schema
    .createTable("workflow_run_steps")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("step_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("started_at", "bigint")
    .addColumn("duration_ms", "integer")
    .addColumn("exports", "text")
    .addColumn("return_value", "text")
    .addColumn("resume_data", "text")
    .addColumn("logs", "text")
    .addColumn("error", "text")
    // $.flow.rerun: how often the step ran, the context it passed on, a resume request's data.
    .addColumn("runs", "integer", (c) => c.notNull())
    .addColumn("rerun_context", "text")
    .addColumn("callback_request", "text")
    // While paused: what the step asked for ($.flow.delay, suspend or rerun), as JSON.
    .addColumn("flow", "text")
    .addPrimaryKeyConstraint("workflow_run_steps_pk", ["run_id", "position"])
    .execute();

  await db.schema
    .createTable("workflow_run_links")
    .addColumn("hash", "text", (c) => c.primaryKey())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("wake_seq", "integer", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("workflow_run_links_by_run").on("workflow_run_links").column("run_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("workflow_run_links").execute();
  await db.schema.dropTable("workflow_run_steps").execute();
  await db.schema.dropTable("workflow_runs").execute();
}
