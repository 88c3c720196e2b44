// A run as the API shows it. Times are milliseconds since the epoch (a run and its steps
// often last less than a second). Steps without a row yet are pending while the run goes on
// and skipped once it ended (after a failure, $.flow.exit or a cancel).
import type { RunStatus, RunStepStatus, WorkflowRunStepsTable, WorkflowRunsTable } from "../../../store/schema.js";
import { fromJson, runSteps, stepExports } from "./run-state.js";

export interface RunView {
  id: string;
  workflow_id: string;
  status: RunStatus;
  summary: string | null;
  trigger_event: unknown;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
}

export interface RunStepView {
  name: string;
  status: RunStepStatus;
  started_at: number | null;
  duration_ms: number | null;
  exports: Record<string, unknown>;
  return_value: unknown;
  logs: unknown[];
  error: unknown;
}

export function runView(row: WorkflowRunsTable): RunView {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    status: row.status,
    summary: row.summary,
    trigger_event: JSON.parse(row.trigger_event),
    started_at: Number(row.created_at),
    ended_at: row.ended_at === null ? null : Number(row.ended_at),
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
  };
}

export function runStepViews(run: WorkflowRunsTable, rows: Map<number, WorkflowRunStepsTable>): RunStepView[] {
  const ended = run.status === "succeeded" || run.status === "failed" || run.status === "cancelled";
  return runSteps(run).map((step, position) => {
    const row = rows.get(position);
    if (!row || row.status === "pending")
      return {
        name: step.name,
        status: ended ? "skipped" : "pending",
        started_at: null,
        duration_ms: null,
        exports: {},
        return_value: null,
        logs: [],
        error: null,
      };
    const { $return_value, ...exports } = stepExports(row);
    return {
      name: row.name,
      status: row.status,
      started_at: row.started_at === null ? null : Number(row.started_at),
      duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
      exports,
      return_value: $return_value ?? null,
      logs: (fromJson(row.logs) ?? []) as unknown[],
      error: fromJson(row.error) ?? null,
    };
  });
}
