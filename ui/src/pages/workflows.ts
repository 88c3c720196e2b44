// Workflows: the list; one workflow with its steps, emits, $logs and $errors (with replay).
import { api, enc } from "../api.js";
import { errorBox, h, time } from "../dom.js";
import type { TailEvent } from "../live-tail.js";
import { liveEvents } from "./live-events.js";

export async function workflowsPage(): Promise<HTMLElement> {
  const { data } = await api<{ data: any[] }>("GET", "/users/me/workflows?limit=100");
  return h(
    "div",
    {},
    h("h2", {}, "Workflows"),
    data.length
      ? h(
          "table",
          {},
          h(
            "thead",
            {},
            h("tr", {}, h("th", {}, "Name"), h("th", {}, "Id"), h("th", {}, "Steps"), h("th", {}, "State"), h("th", {}, "Created")),
          ),
          h(
            "tbody",
            {},
            data.map((w) =>
              h(
                "tr",
                {},
                h("td", {}, h("a", { href: `#/workflows/${w.id}` }, w.name || w.id)),
                h("td", {}, w.id),
                h("td", {}, w.steps.length),
                h("td", {}, w.active ? "active" : "inactive"),
                h("td", {}, time(w.created_at)),
              ),
            ),
          ),
        )
      : h("p", {}, "No workflows yet. Create them with the CLI or the API."),
  );
}

export async function workflowPage(id: string, signal: AbortSignal): Promise<HTMLElement> {
  const { data: w } = await api("GET", `/workflows/${enc(id)}`);
  const replay = (event: TailEvent) =>
    h(
      "button",
      {
        onclick: async (e: Event) => {
          const button = e.currentTarget as HTMLButtonElement;
          try {
            await api("POST", `/workflows/${enc(id)}/$errors/${enc(event.id)}/replay`);
            button.textContent = "Replay queued";
          } catch (error) {
            button.after(errorBox(error));
          }
        },
      },
      "Replay",
    );
  return h(
    "div",
    {},
    h("h2", {}, "Workflow ", w.name || w.id),
    h(
      "dl",
      {},
      h("dt", {}, "Id"),
      h("dd", {}, w.id),
      h("dt", {}, "State"),
      h("dd", {}, w.active ? "active" : "inactive"),
      h("dt", {}, "Endpoint"),
      h("dd", {}, h("code", {}, w.endpoint_url)),
    ),
    h("h3", {}, "Steps"),
    w.steps.map((s: any) => h("details", { class: "step" }, h("summary", {}, s.name || s.id), h("pre", {}, stepText(s)))),
    h(
      "div",
      { class: "streams" },
      liveEvents("workflows", id, "", signal),
      liveEvents("workflows", id, "$logs", signal),
      liveEvents("workflows", id, "$errors", signal, replay),
    ),
  );
}

/** A code step shows its code; an action step what it runs and its configured props. */
function stepText(step: any): string {
  if (step.type !== "action") return step.code ?? "";
  const what = step.action ? `action ${step.action}${step.version ? `@${step.version}` : ""}` : `component ${step.component_id}`;
  return `${what}\nprops ${JSON.stringify(step.props ?? {}, null, 2)}`;
}
