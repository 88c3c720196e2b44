// One source: props, endpoint URL, activate/deactivate, delete, its code and props to edit, and its live streams.
import { api, enc } from "../api.js";
import { errorBox, h, json, mount } from "../dom.js";
import { sourceForm } from "../forms/source-form.js";
import { go } from "../router.js";
import { liveEvents } from "./live-events.js";

export async function sourcePage(id: string, signal: AbortSignal): Promise<HTMLElement> {
  const { data: source } = await api("GET", `/sources/${enc(id)}`);
  const endpoint: string | undefined = source.configured_props?.http?.endpoint_url;
  const status = h("div");
  // An update names the component (the API requires one); the same component keeps the code.
  const act = async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  return h(
    "div",
    {},
    h("h2", {}, "Source ", source.name || source.id),
    h(
      "dl",
      {},
      h("dt", {}, "Id"),
      h("dd", {}, source.id),
      h("dt", {}, "Component"),
      h("dd", {}, source.component_id),
      h("dt", {}, "State"),
      h("dd", { class: "source-state" }, source.active ? "active" : "inactive"),
      endpoint ? [h("dt", {}, "Endpoint"), h("dd", {}, h("code", { class: "endpoint" }, endpoint))] : null,
      h("dt", {}, "Props"),
      h("dd", {}, h("pre", {}, json(source.configured_props))),
    ),
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          onclick: () =>
            act(
              async () => (
                await api("PUT", `/sources/${enc(id)}`, { component_id: source.component_id, active: !source.active }),
                go(`/sources/${id}`, true)
              ),
            ),
        },
        source.active ? "Deactivate" : "Activate",
      ),
      h(
        "button",
        {
          class: "danger",
          onclick: () =>
            act(async () => {
              if (!confirm(`Delete source ${source.name || id}?`)) return;
              await api("DELETE", `/sources/${enc(id)}`);
              go("/sources");
            }),
        },
        "Delete",
      ),
    ),
    status,
    editSource(source),
    h(
      "div",
      { class: "streams" },
      liveEvents("sources", id, "", signal),
      liveEvents("sources", id, "$logs", signal),
      liveEvents("sources", id, "$errors", signal),
    ),
  );
}

/** The source's code and props, editable; read when opened. Saving updates the source in place (same id and endpoint). */
function editSource(source: any): HTMLElement {
  const body = h("div", {}, "loading…");
  const details = h("details", { class: "component" }, h("summary", {}, "Code and props"), body);
  details.addEventListener(
    "toggle",
    async () => {
      try {
        const { data } = await api("GET", `/components/${enc(source.component_id)}`);
        mount(
          body,
          h("p", {}, `${data.name} ${data.version}`),
          sourceForm({
            code: data.code,
            component: data,
            values: source.configured_props,
            name: source.name,
            submitLabel: "Save",
            save: async (input) => {
              await api("PUT", `/sources/${enc(source.id)}`, input);
              go(`/sources/${source.id}`, true);
            },
          }),
        );
      } catch (error) {
        mount(body, errorBox(error));
      }
    },
    { once: true },
  );
  return details;
}
