// A run as stored, read back: its row, its step rows, and `steps` as the next step sees it
// (the trigger and the results of the steps that completed).
import type { Kysely } from "kysely";
import type { Database, WorkflowRunStepsTable, WorkflowRunsTable } from "../../../store/schema.js";
import type { WorkflowStepCode } from "../../../runner/protocol/workflow-execution.js";

/** JSON text for a column; undefined stays null. */
export function toJson(value: unknown): string | null {
  if (value === undefined) return null;
  return JSON.stringify(value);
}

export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

export function runSteps(run: Pick<WorkflowRunsTable, "steps">): WorkflowStepCode[] {
  return JSON.parse(run.steps) as WorkflowStepCode[];
}

export async function loadStepRows(db: Kysely<Database>, runId: string): Promise<Map<number, WorkflowRunStepsTable>> {
  const rows = await db.selectFrom("workflow_run_steps").selectAll().where("run_id", "=", runId).execute();
  return new Map(rows.map((row) => [Number(row.position), row]));
}

/** `steps.<name>`: the step's exports, `$return_value`, and `$resume_data` when it was resumed with data. */
export function stepExports(row: WorkflowRunStepsTable): Record<string, unknown> {
  const exports = (fromJson(row.exports) ?? {}) as Record<string, unknown>;
  const result: Record<string, unknown> = { ...exports, $return_value: fromJson(row.return_value) };
  if (row.resume_data !== null) result.$resume_data = fromJson(row.resume_data);
  return result;
}

export function stepsState(run: WorkflowRunsTable, rows: Map<number, WorkflowRunStepsTable>, upTo: number): Record<string, unknown> {
  const steps: Record<string, unknown> = { trigger: { event: fromJson(run.trigger_event), context: fromJson(run.context) } };
  for (let position = 0; position < upTo; position++) {
    const row = rows.get(position);
    if (row?.status === "succeeded") steps[row.name] = stepExports(row);
  }
  return steps;
}
