// Tests the builder's steps (saved or not) on a chosen event with POST /v1/workflows/{id}/test:
// the event is typed in, or the last one that triggered the workflow. Shows each step's result;
// nothing is stored and nothing emitted.
import { api, enc } from "../api.js";
import { errorBox, h, json, mount } from "../dom.js";
import { formatDuration, stepResultsView } from "./step-results.js";

export const HTTP_EVENT = { method: "POST", path: "/", query: {}, headers: { "content-type": "application/json" }, body: {} };

export interface TestPanel {
  element: HTMLElement;
  /** Runs the steps through the named one (all of them without a name). */
  run(through?: string): Promise<void>;
}

export function testPanel(workflowId: string | undefined, steps: () => Record<string, unknown>[]): TestPanel {
  const event = h("textarea", { id: "test-event", rows: 6, spellcheck: false, value: json(HTTP_EVENT) });
  const results = h("div", { class: "test-results", "aria-live": "polite" });
  const run = async (through?: string) => {
    if (!workflowId) {
      mount(results, h("p", {}, "Save the workflow first, then test its steps."));
      return;
    }
    mount(results, h("p", {}, through ? `testing through ${through}…` : "testing…"));
    try {
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.value || "null");
      } catch {
        throw new Error("the test event is not valid JSON");
      }
      const body: Record<string, unknown> = { event: parsed, steps: steps() };
      if (through) body.through_step = through;
      const { data } = await api("POST", `/workflows/${enc(workflowId)}/test`, body);
      mount(
        results,
        h("h4", {}, `Test ${data.status} in ${formatDuration(data.duration_ms)}`),
        stepResultsView(data.steps),
        data.emits?.length ? h("p", {}, `${data.emits.length} event(s) would be emitted (not emitted by a test).`) : null,
      );
    } catch (error) {
      mount(results, errorBox(error));
    }
  };
  const lastEvent = h("button", { type: "button" }, "Use the last trigger event");
  lastEvent.addEventListener("click", async () => {
    if (!workflowId) return;
    try {
      const found = await lastTriggerEvent(workflowId);
      if (found === undefined) mount(results, h("p", {}, "This workflow has not been triggered yet."));
      else event.value = json(found);
    } catch (error) {
      mount(results, errorBox(error));
    }
  });
  return {
    element: h(
      "section",
      { class: "test-panel", "aria-labelledby": "test-title" },
      h("h3", { id: "test-title" }, "Test"),
      h("div", { class: "field" }, h("label", { for: event.id }, "Test event (JSON)"), event),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", onclick: () => void run() }, "Test the workflow"),
        workflowId ? lastEvent : null,
      ),
      results,
    ),
    run,
  };
}

/** The event of the newest run; failing that (no runs API), the original event of the newest error. */
async function lastTriggerEvent(id: string): Promise<unknown> {
  try {
    const { data } = await api<{ data: { trigger_event?: unknown }[] }>("GET", `/workflows/${enc(id)}/runs?limit=1`);
    if (data[0] && data[0].trigger_event !== undefined) return data[0].trigger_event;
  } catch {
    // An older server without runs: errors still carry the event that caused them.
  }
  const { data } = await api<{ data: { event?: { original_event?: unknown } }[] }>(
    "GET",
    `/workflows/${enc(id)}/$errors/event_summaries?limit=1&expand=event`,
  );
  return data[0]?.event?.original_event;
}
