// One webhook: its deliveries, newest first, every attempt, and resend (one, or every failed one).
// The list refreshes while the page is open, since retries change it.
import { api, enc } from "../api.js";
import { errorBox, h, jsonView, mount, time } from "../dom.js";

const REFRESH_MS = 2_000;

export async function webhookPage(id: string, signal: AbortSignal): Promise<HTMLElement> {
  const { data: hook } = await api("GET", `/webhooks/${enc(id)}`);
  const list = h("div", { class: "deliveries" });
  const status = h("div");
  let shown = "";
  const refresh = async () => {
    try {
      const { data } = await api<{ data: any[] }>("GET", `/webhooks/${enc(id)}/deliveries?limit=50`);
      // Unchanged, the list stays as it is, with the events the user opened still open.
      const text = JSON.stringify(data);
      if (text === shown) return;
      shown = text;
      mount(list, data.length ? data.map((d) => delivery(id, d, refresh, status)) : h("p", {}, "No deliveries yet."));
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  await refresh();
  const timer = setInterval(() => void refresh(), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
  return h(
    "div",
    {},
    h("h2", {}, "Webhook ", hook.url),
    h("dl", {}, h("dt", {}, "Id"), h("dd", {}, hook.id), h("dt", {}, "State"), h("dd", {}, hook.active ? "active" : "inactive")),
    h(
      "div",
      { class: "actions" },
      h("button", { onclick: () => void refresh() }, "Refresh"),
      h(
        "button",
        {
          onclick: async () => {
            try {
              const { data } = await api("POST", `/webhooks/${enc(id)}/deliveries/resend`, {});
              status.replaceChildren(h("p", {}, `${data.resent} failed deliveries sent again`));
              await refresh();
            } catch (error) {
              status.replaceChildren(errorBox(error));
            }
          },
        },
        "Resend all failed",
      ),
    ),
    status,
    h("h3", {}, "Deliveries"),
    list,
  );
}

function delivery(hookId: string, d: any, refresh: () => Promise<void>, status: HTMLElement): HTMLElement {
  const attempts = (d.attempts as any[]).map((a, n) =>
    h(
      "tr",
      { class: "attempt" },
      h("td", {}, n + 1),
      h("td", {}, time(a.attempted_at)),
      h("td", {}, a.status_code ?? "—"),
      h("td", {}, `${a.duration_ms} ms`),
      h("td", {}, a.error ?? a.response_excerpt ?? ""),
    ),
  );
  return h(
    "article",
    { class: `delivery ${d.status}`, "data-id": d.id },
    h(
      "header",
      {},
      h("b", { class: "delivery-status" }, d.status),
      ` · ${d.attempt_count} attempt${d.attempt_count === 1 ? "" : "s"} · ${d.event_name || "default stream"} · ${time(d.created_at)}`,
      d.next_attempt_at ? ` · next ${time(d.next_attempt_at)}` : "",
      d.status !== "pending"
        ? h(
            "button",
            {
              onclick: async () => {
                try {
                  await api("POST", `/webhooks/${enc(hookId)}/deliveries/${enc(d.id)}/resend`);
                  await refresh();
                } catch (error) {
                  status.replaceChildren(errorBox(error));
                }
              },
            },
            "Resend",
          )
        : null,
    ),
    jsonView(d.event, "event"),
    attempts.length
      ? h(
          "table",
          { class: "attempts" },
          h(
            "thead",
            {},
            h("tr", {}, h("th", {}, "#"), h("th", {}, "At"), h("th", {}, "Status"), h("th", {}, "Took"), h("th", {}, "Error or response")),
          ),
          h("tbody", {}, attempts),
        )
      : null,
  );
}
