// Webhooks: the list and a new webhook. The list is read again after every change, so a new
// webhook shows at once (with its signing secret, shown once, beside the form).
import { api, enc } from "../api.js";
import { errorBox, h, mount } from "../dom.js";

export async function webhooksPage(): Promise<HTMLElement> {
  const list = h("div");
  const url = h("input", { id: "webhook-url", name: "url", type: "url", required: true, placeholder: "https://example.com/hook" });
  const status = h("div", { role: "status" });
  const refresh = async () => {
    const { data } = await api<{ data: any[] }>("GET", "/users/me/webhooks?limit=100");
    mount(list, data.length ? table(data) : h("p", {}, "No webhooks yet."));
  };
  const remove = async (w: any) => {
    if (!confirm(`Delete webhook ${w.url}?`)) return;
    try {
      await api("DELETE", `/webhooks/${enc(w.id)}`);
      status.replaceChildren(`Deleted ${w.url}.`);
      await refresh();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  const table = (data: any[]) =>
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h("tr", {}, h("th", {}, "URL"), h("th", {}, "Id"), h("th", {}, "State"), h("th", {}, h("span", { class: "sr-only" }, "Actions"))),
      ),
      h(
        "tbody",
        {},
        data.map((w) =>
          h(
            "tr",
            {},
            h("td", {}, h("a", { href: `#/webhooks/${w.id}` }, w.url)),
            h("td", {}, w.id),
            h("td", {}, w.active ? "active" : "inactive"),
            h("td", {}, h("button", { class: "danger", "aria-label": `Delete ${w.url}`, onclick: () => void remove(w) }, "Delete")),
          ),
        ),
      ),
    );
  await refresh();
  return h(
    "div",
    {},
    h("h2", {}, "Webhooks"),
    list,
    h(
      "form",
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            const { data: hook } = await api("POST", "/webhooks", { url: url.value });
            url.value = "";
            await refresh();
            status.replaceChildren(
              h("p", {}, "Signing secret (shown once): ", h("code", {}, hook.signing_secret ?? "")),
              h("a", { href: `#/webhooks/${hook.id}` }, "Open the webhook"),
            );
          } catch (error) {
            status.replaceChildren(errorBox(error));
          }
        },
      },
      h("h3", {}, "New webhook"),
      h("label", { for: "webhook-url" }, "Webhook URL"),
      url,
      h("button", { type: "submit" }, "Create"),
    ),
    status,
  );
}
