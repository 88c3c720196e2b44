// Picks an action for a new step from the registry (GET /v1/components/registry?type=action):
// a searchable list of published actions with their descriptions, opened by a button.
import { api } from "../api.js";
import { errorBox, h, mount } from "../dom.js";

export interface RegistryAction {
  key: string;
  name: string;
  version: string;
  description: string | null;
}

export function actionPicker(onPick: (action: RegistryAction) => void): { button: HTMLButtonElement; element: HTMLElement } {
  const search = h("input", { id: "action-search", type: "search", autocomplete: "off" });
  const results = h("ul", { class: "action-list" });
  const element = h(
    "section",
    { class: "action-picker", "aria-labelledby": "action-picker-title", hidden: true },
    h("h4", { id: "action-picker-title" }, "Add an action from the registry"),
    h("div", { class: "field" }, h("label", { for: search.id }, "Search actions"), search),
    results,
  );
  let actions: RegistryAction[] | undefined;
  const show = () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = (actions ?? []).filter((a) => words.every((w) => `${a.key} ${a.name} ${a.description ?? ""}`.toLowerCase().includes(w)));
    mount(
      results,
      shown.length
        ? shown.map((action) =>
            h(
              "li",
              {},
              h(
                "button",
                {
                  type: "button",
                  onclick: () => {
                    element.hidden = true;
                    button.setAttribute("aria-expanded", "false");
                    onPick(action);
                  },
                },
                `Add ${action.name}`,
              ),
              " ",
              h("code", {}, action.key),
              action.description ? h("p", { class: "description" }, action.description) : null,
            ),
          )
        : h("li", {}, actions?.length ? "No action matches." : "The registry has no actions yet."),
    );
  };
  search.addEventListener("input", show);
  const button = h("button", { type: "button", "aria-expanded": "false", "aria-controls": "action-picker" }, "Add an action");
  element.id = "action-picker";
  button.addEventListener("click", async () => {
    element.hidden = !element.hidden;
    button.setAttribute("aria-expanded", String(!element.hidden));
    if (element.hidden) return;
    search.focus();
    if (actions) return show();
    mount(results, h("li", {}, "loading the registry…"));
    try {
      const { data } = await api<{ data: (RegistryAction & { type?: string })[] }>("GET", "/components/registry?type=action&limit=100");
      // A registry that cannot filter by type lists sources too; their type tells them apart.
      actions = data.filter((c) => c.type === undefined || c.type === "action");
      show();
    } catch (error) {
      mount(results, h("li", {}, errorBox(error)));
    }
  });
  return { button, element };
}
