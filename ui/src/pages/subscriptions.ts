// Subscriptions: every subscription of the account, add one, remove one. Emitters and listeners
// are picked and shown by name (sources, workflows, webhooks), not typed in as ids.
import { api } from "../api.js";
import { errorBox, h, mount } from "../dom.js";

interface Named {
  id: string;
  label: string;
}

async function list(path: string, kind: string, label: (item: any) => string): Promise<Named[]> {
  const { data } = await api<{ data: any[] }>("GET", `${path}?limit=100`);
  return data.map((item) => ({ id: item.id, label: `${kind} ${label(item)}` }));
}

function picker(id: string, groups: Array<[string, Named[]]>): HTMLSelectElement {
  return h(
    "select",
    { id, required: true },
    h("option", { value: "" }, "(choose)"),
    groups.map(([label, items]) =>
      items.length
        ? h(
            "optgroup",
            { label },
            items.map((item) => h("option", { value: item.id }, item.label)),
          )
        : null,
    ),
  );
}

export async function subscriptionsPage(): Promise<HTMLElement> {
  const [sources, workflows, webhooks] = await Promise.all([
    list("/users/me/sources", "source", (s) => s.name || s.id),
    list("/users/me/workflows", "workflow", (w) => w.name || w.id),
    list("/users/me/webhooks", "webhook", (w) => w.url),
  ]);
  const names = new Map([...sources, ...workflows, ...webhooks].map((n) => [n.id, n.label]));
  const named = (id: string) => (names.has(id) ? `${names.get(id)} (${id})` : id);
  const emitter = picker("emitter", [
    ["Sources", sources],
    ["Workflows", workflows],
  ]);
  const listener = picker("listener", [
    ["Webhooks", webhooks],
    ["Sources", sources],
    ["Workflows", workflows],
  ]);
  const stream = h("input", { id: "event-name", name: "event_name", placeholder: "empty: the default stream" });
  const status = h("div", { role: "status" });
  const rows = h("div");
  const refresh = async () => {
    const { data } = await api<{ data: any[] }>("GET", "/users/me/subscriptions");
    mount(
      rows,
      data.length
        ? h(
            "table",
            {},
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", {}, "Emitter"),
                h("th", {}, "Stream"),
                h("th", {}, "Listener"),
                h("th", {}, h("span", { class: "sr-only" }, "Actions")),
              ),
            ),
            h(
              "tbody",
              {},
              data.map((s) =>
                h(
                  "tr",
                  {},
                  h("td", {}, named(s.emitter_id)),
                  h("td", {}, s.event_name || "default"),
                  h("td", {}, named(s.listener_id)),
                  h("td", {}, h("button", { class: "danger", onclick: () => void remove(s) }, "Remove")),
                ),
              ),
            ),
          )
        : h("p", {}, "No subscriptions yet."),
    );
  };
  const remove = async (s: any) => {
    try {
      await api("DELETE", "/subscriptions", { emitter_id: s.emitter_id, listener_id: s.listener_id, event_name: s.event_name });
      status.replaceChildren("Removed.");
      await refresh();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  await refresh();
  return h(
    "div",
    {},
    h("h2", {}, "Subscriptions"),
    rows,
    h(
      "form",
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            await api("POST", "/subscriptions", {
              emitter_id: emitter.value,
              listener_id: listener.value,
              ...(stream.value.trim() ? { event_name: stream.value.trim() } : {}),
            });
            status.replaceChildren("Subscribed.");
            await refresh();
          } catch (error) {
            status.replaceChildren(errorBox(error));
          }
        },
      },
      h("h3", {}, "New subscription"),
      h("label", { for: "emitter" }, "Emitter"),
      emitter,
      h("label", { for: "event-name" }, "Event name", h("span", { class: "optional" }, " (optional)")),
      stream,
      h("label", { for: "listener" }, "Listener"),
      listener,
      h("button", { type: "submit" }, "Subscribe"),
    ),
    status,
  );
}
