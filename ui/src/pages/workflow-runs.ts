// A workflow's runs: the list (GET /v1/workflows/{id}/runs: status, $summary, duration) and one
// run with every step's result (GET /v1/workflows/{id}/runs/{run_id}). A paused run shows
// Resume (with optional resume data) and Cancel, through the owner's runs API.
import { api, enc } from "../api.js";
import { errorBox, h, jsonView, mount, time } from "../dom.js";
import { go } from "../router.js";
import { formatDuration, stepResultsView, type StepResult } from "./step-results.js";

export interface RunSummary {
  id: string;
  status: "running" | "paused" | "succeeded" | "failed" | "cancelled";
  summary: string | null;
  trigger_event: unknown;
  started_at: number | string;
  ended_at: number | string | null;
  duration_ms: number | null;
}

interface Run extends RunSummary {
  steps: StepResult[];
}

const when = (t: number | string | null | undefined) => (t === null || t === undefined ? "—" : typeof t === "number" ? time(t) : t);

/** The newest runs, refreshed on demand. */
export async function runsPage(workflowId: string): Promise<HTMLElement> {
  const { data: workflow } = await api("GET", `/workflows/${enc(workflowId)}`);
  const body = h("div", {}, "loading runs…");
  const load = async () => {
    try {
      const { data } = await api<{ data: RunSummary[] }>("GET", `/workflows/${enc(workflowId)}/runs?limit=50`);
      mount(body, data.length ? runsTable(workflowId, data) : h("p", {}, "No runs yet."));
    } catch (error) {
      mount(body, errorBox(error));
    }
  };
  void load();
  return h(
    "div",
    { class: "runs" },
    h("p", {}, h("a", { href: `#/workflows/${enc(workflowId)}` }, `← ${workflow.name || workflowId}`)),
    h("h2", {}, `Runs of ${workflow.name || workflowId}`),
    h("div", { class: "actions" }, h("button", { type: "button", onclick: () => void load() }, "Refresh")),
    body,
  );
}

function runsTable(workflowId: string, runs: RunSummary[]): HTMLElement {
  return h(
    "table",
    { class: "run-list" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "Run"), h("th", {}, "Status"), h("th", {}, "Summary"), h("th", {}, "Duration"), h("th", {}, "Started")),
    ),
    h(
      "tbody",
      {},
      runs.map((run) =>
        h(
          "tr",
          {},
          h("td", {}, h("a", { href: `#/workflows/${enc(workflowId)}/runs/${enc(run.id)}` }, run.id)),
          h("td", { class: `run-status ${run.status}` }, run.status),
          h("td", {}, run.summary ?? ""),
          h("td", {}, formatDuration(run.duration_ms)),
          h("td", {}, when(run.started_at)),
        ),
      ),
    ),
  );
}

export async function runPage(workflowId: string, runId: string): Promise<HTMLElement> {
  const [{ data: workflow }, { data: run }] = await Promise.all([
    api("GET", `/workflows/${enc(workflowId)}`),
    api<{ data: Run }>("GET", `/workflows/${enc(workflowId)}/runs/${enc(runId)}`),
  ]);
  return h(
    "div",
    {},
    h("p", {}, h("a", { href: `#/workflows/${enc(workflowId)}/runs` }, `← runs of ${workflow.name || workflowId}`)),
    h("h2", {}, `Run ${run.id}`),
    h(
      "dl",
      {},
      h("dt", {}, "Status"),
      h("dd", { class: `run-status ${run.status}` }, run.status),
      h("dt", {}, "Summary"),
      h("dd", {}, run.summary ?? "—"),
      h("dt", {}, "Started"),
      h("dd", {}, when(run.started_at)),
      h("dt", {}, "Ended"),
      h("dd", {}, when(run.ended_at)),
      h("dt", {}, "Duration"),
      h("dd", {}, formatDuration(run.duration_ms)),
    ),
    run.status === "paused" ? pausedControls(workflowId, run) : null,
    jsonView(run.trigger_event, "Trigger event"),
    h("h3", {}, "Steps"),
    stepResultsView(run.steps ?? []),
  );
}

function pausedControls(workflowId: string, run: Run): HTMLElement {
  const data = h("textarea", { id: "resume-data", rows: 3, placeholder: '{"approved": true}', spellcheck: false });
  const status = h("div", { "aria-live": "polite" });
  // The owner's API, not the run's single-use links: those may be on another origin (the
  // public URL) and are the workflow's to hand out, not the dashboard's to spend.
  const call = async (action: "resume" | "cancel", body?: unknown) => {
    try {
      await api("POST", `/workflows/${enc(workflowId)}/runs/${enc(run.id)}/${action}`, body === undefined ? {} : { data: body });
      go(`/workflows/${workflowId}/runs/${run.id}`, true);
    } catch (error) {
      mount(status, errorBox(error));
    }
  };
  const resume = () => {
    const text = data.value.trim();
    let body: unknown;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        return mount(status, errorBox(new Error("the resume data is not valid JSON")));
      }
    }
    void call("resume", body);
  };
  return h(
    "section",
    { class: "paused", "aria-labelledby": "paused-title" },
    h("h3", { id: "paused-title" }, "Paused: waiting to be resumed"),
    h("div", { class: "field" }, h("label", { for: data.id }, "Resume data (JSON, optional)"), data),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "button", onclick: resume }, "Resume"),
      h("button", { type: "button", class: "danger", onclick: () => void call("cancel") }, "Cancel run"),
    ),
    status,
  );
}
