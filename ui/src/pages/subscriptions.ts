// Subscriptions: every subscription of the account, add one, remove one.
import { api } from "../api.js";
import { errorBox, h } from "../dom.js";
import { go } from "../router.js";

export async function subscriptionsPage(): Promise<HTMLElement> {
  const { data } = await api<{ data: any[] }>("GET", "/users/me/subscriptions");
  const emitter = h("input", {
    name: "emitter_id",
    required: true,
    placeholder: "emitter id (source or workflow)",
    "aria-label": "emitter id",
  });
  const listener = h("input", {
    name: "listener_id",
    required: true,
    placeholder: "listener id (webhook, source or workflow)",
    "aria-label": "listener id",
  });
  const stream = h("input", { name: "event_name", placeholder: "event name (empty: default stream)", "aria-label": "event name" });
  const status = h("div");
  const remove = async (s: any) => {
    try {
      await api("DELETE", "/subscriptions", { emitter_id: s.emitter_id, listener_id: s.listener_id, event_name: s.event_name });
      go("/subscriptions", true);
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  return h(
    "div",
    {},
    h("h2", {}, "Subscriptions"),
    data.length
      ? h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", {}, "Emitter"), h("th", {}, "Stream"), h("th", {}, "Listener"), h("th", {}))),
          h(
            "tbody",
            {},
            data.map((s) =>
              h(
                "tr",
                {},
                h("td", {}, s.emitter_id),
                h("td", {}, s.event_name || "default"),
                h("td", {}, s.listener_id),
                h("td", {}, h("button", { class: "danger", onclick: () => void remove(s) }, "Remove")),
              ),
            ),
          ),
        )
      : h("p", {}, "No subscriptions yet."),
    h(
      "form",
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            await api("POST", "/subscriptions", {
              emitter_id: emitter.value.trim(),
              listener_id: listener.value.trim(),
              ...(stream.value.trim() ? { event_name: stream.value.trim() } : {}),
            });
            go("/subscriptions", true);
          } catch (error) {
            status.replaceChildren(errorBox(error));
          }
        },
      },
      h("h3", {}, "New subscription"),
      emitter,
      stream,
      listener,
      h("button", { type: "submit" }, "Subscribe"),
    ),
    status,
  );
}
