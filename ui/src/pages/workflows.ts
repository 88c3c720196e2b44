// Workflows: the list; one workflow with its trigger, steps, runs, emits, $logs and $errors
// (with replay). Building and editing is the builder's (workflow-builder.ts).
import { api, enc } from "../api.js";
import { errorBox, h, json, time } from "../dom.js";
import type { TailEvent } from "../live-tail.js";
import { go } from "../router.js";
import { liveEvents } from "./live-events.js";

export async function workflowsPage(): Promise<HTMLElement> {
  const { data } = await api<{ data: any[] }>("GET", "/users/me/workflows?limit=100");
  return h(
    "div",
    {},
    h("h2", {}, "Workflows"),
    h("p", {}, h("a", { href: "#/workflows/new", class: "button" }, "New workflow")),
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
      : h("p", {}, "No workflows yet."),
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
      h("dt", {}, "Trigger"),
      h("dd", {}, triggerText(w)),
      h("dt", {}, "Endpoint"),
      h("dd", {}, h("code", {}, w.endpoint_url)),
    ),
    h(
      "div",
      { class: "actions" },
      h("a", { href: `#/workflows/${enc(id)}/edit`, class: "button" }, "Edit"),
      h("a", { href: `#/workflows/${enc(id)}/runs`, class: "button" }, "Runs"),
      h(
        "button",
        {
          type: "button",
          onclick: async (e: Event) => {
            try {
              await api("PUT", `/workflows/${enc(id)}`, { active: !w.active });
              go(`/workflows/${id}`, true);
            } catch (error) {
              (e.currentTarget as HTMLElement).after(errorBox(error));
            }
          },
        },
        w.active ? "Deactivate" : "Activate",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: async (e: Event) => {
            if (!confirm(`Delete workflow ${w.name || id}?`)) return;
            try {
              await api("DELETE", `/workflows/${enc(id)}`);
              go("/workflows");
            } catch (error) {
              (e.currentTarget as HTMLElement).after(errorBox(error));
            }
          },
        },
        "Delete",
      ),
    ),
    h("h3", {}, "Steps"),
    w.steps.map((s: any) =>
      h(
        "details",
        { class: "step" },
        h("summary", {}, s.name || s.id, s.action ? ` (action ${s.action})` : ""),
        s.code !== undefined ? h("pre", {}, s.code) : null,
        s.props && Object.keys(s.props).length ? h("pre", {}, json(s.props)) : null,
      ),
    ),
    h(
      "div",
      { class: "streams" },
      liveEvents("workflows", id, "", signal),
      liveEvents("workflows", id, "$logs", signal),
      liveEvents("workflows", id, "$errors", signal, replay),
    ),
  );
}

function triggerText(w: any): string {
  const trigger = w.trigger ?? { type: "http" };
  switch (trigger.type) {
    case "timer":
      return `schedule: ${trigger.cron ? `cron ${trigger.cron}` : `every ${trigger.intervalSeconds} s`}${trigger.timezone ? ` (${trigger.timezone})` : ""}`;
    case "source":
      return `events of source ${trigger.source_id}`;
    case "email":
      return `e-mail to ${trigger.email_address || w.email_address || "its address"}`;
    default:
      return "HTTP request to its endpoint";
  }
}
