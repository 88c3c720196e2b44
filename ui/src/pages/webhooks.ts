// Webhooks: the list and a new webhook.
import { api, enc } from "../api.js";
import { errorBox, h } from "../dom.js";
import { go } from "../router.js";

export async function webhooksPage(): Promise<HTMLElement> {
  const { data } = await api<{ data: any[] }>("GET", "/users/me/webhooks?limit=100");
  const url = h("input", {
    name: "url",
    type: "url",
    required: true,
    placeholder: "https://example.com/hook",
    "aria-label": "webhook URL",
  });
  const status = h("div");
  const remove = async (w: any) => {
    if (!confirm(`Delete webhook ${w.url}?`)) return;
    try {
      await api("DELETE", `/webhooks/${enc(w.id)}`);
      go("/webhooks", true);
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  return h(
    "div",
    {},
    h("h2", {}, "Webhooks"),
    data.length
      ? h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", {}, "URL"), h("th", {}, "Id"), h("th", {}, "State"), h("th", {}))),
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
                h("td", {}, h("button", { class: "danger", onclick: () => void remove(w) }, "Delete")),
              ),
            ),
          ),
        )
      : h("p", {}, "No webhooks yet."),
    h(
      "form",
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            const { data: hook } = await api("POST", "/webhooks", { url: url.value });
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
      url,
      h("button", { type: "submit" }, "Create"),
    ),
    status,
  );
}
