// Each step's result, as a run (GET /v1/workflows/{id}/runs/{run_id}) or a test
// (POST /v1/workflows/{id}/test) gives it: status, duration, return value, exports, logs and
// error. Everything is shown as text.
import { h, jsonView, time } from "../dom.js";

export interface StepResult {
  name: string;
  status: string;
  started_at?: number | string | null;
  duration_ms?: number | null;
  exports?: Record<string, unknown>;
  return_value?: unknown;
  logs?: { level?: string; message: string; ts?: number }[];
  error?: { name?: string; message?: string; stack?: string } | string | null;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function stepResultsView(steps: StepResult[]): HTMLElement {
  return h("ol", { class: "step-results" }, steps.map(stepResultView));
}

function when(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === "number" ? time(value) : value;
}

function stepResultView(step: StepResult): HTMLElement {
  const exports = Object.entries(step.exports ?? {});
  const logs = step.logs ?? [];
  const started = when(step.started_at);
  return h(
    "li",
    { class: `step-result ${step.status}`, "aria-label": `Result of ${step.name}` },
    h(
      "h4",
      {},
      step.name,
      " ",
      h("span", { class: "status" }, step.status),
      step.duration_ms !== undefined && step.duration_ms !== null ? ` · ${formatDuration(step.duration_ms)}` : "",
      started ? ` · started ${started}` : "",
    ),
    step.status === "skipped" || step.status === "pending"
      ? null
      : [
          // A failed or paused step returned nothing: its null return value is not shown.
          step.return_value !== undefined && (step.status === "succeeded" || step.return_value !== null)
            ? jsonView(step.return_value, "Return value")
            : null,
          exports.length
            ? h(
                "div",
                { class: "exports" },
                exports.map(([name, value]) => jsonView(value, `Export ${name}`)),
              )
            : null,
          logs.length
            ? h(
                "div",
                { class: "logs" },
                h("b", {}, "Logs"),
                h(
                  "pre",
                  {},
                  logs.map((log) => `${log.level && log.level !== "log" ? `[${log.level}] ` : ""}${log.message}\n`),
                ),
              )
            : null,
          errorView(step.error),
        ],
  );
}

function errorView(error: StepResult["error"]): HTMLElement | null {
  if (!error) return null;
  if (typeof error === "string") return h("div", { class: "error", role: "alert" }, error);
  return h(
    "div",
    { class: "error", role: "alert" },
    h("b", {}, `${error.name ?? "Error"}: ${error.message ?? ""}`),
    error.stack ? h("pre", {}, error.stack) : null,
  );
}
