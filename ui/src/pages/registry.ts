// The registry: published sources and actions with their descriptions, searched as you type
// (by name, key and description, in the browser: the list is read whole once), and a source
// deployed from it with its props form.
import { api, enc } from "../api.js";
import { errorBox, h, mount } from "../dom.js";
import { propsForm } from "../forms/props-form.js";
import { go } from "../router.js";

interface Published {
  id: string;
  key: string;
  name: string;
  version: string;
  description: string | null;
  type?: string;
}

const PAGES = 20;

async function allPublished(): Promise<Published[]> {
  const all: Published[] = [];
  let after = "";
  for (let page = 0; page < PAGES; page++) {
    const { data, page_info } = await api<{ data: Published[]; page_info: { end_cursor: string; total_count: number } }>(
      "GET",
      `/components/registry?limit=100${after ? `&after=${enc(after)}` : ""}`,
    );
    all.push(...data);
    if (!data.length || all.length >= page_info.total_count || !page_info.end_cursor) break;
    after = page_info.end_cursor;
  }
  return all;
}

export async function registryPage(): Promise<HTMLElement> {
  const components = await allPublished();
  const search = h("input", { id: "registry-search", type: "search", autocomplete: "off" });
  const kind = h(
    "select",
    { id: "registry-type" },
    h("option", { value: "" }, "sources and actions"),
    h("option", { value: "source" }, "sources"),
    h("option", { value: "action" }, "actions"),
  );
  const count = h("p", { role: "status" });
  const list = h("ul", { class: "registry" });
  const deploy = h("div");
  const show = () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = components.filter((c) => {
      if (kind.value && (c.type ?? "source") !== kind.value) return false;
      const text = `${c.name} ${c.key} ${c.description ?? ""}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
    count.replaceChildren(`${shown.length} of ${components.length} components`);
    mount(
      list,
      shown.map((c) =>
        h(
          "li",
          { class: "published" },
          h("h3", {}, c.name, " ", h("span", { class: "kind" }, c.type ?? "source")),
          h("p", { class: "key" }, h("code", {}, c.key), ` ${c.version}`),
          c.description ? h("p", {}, c.description) : null,
          (c.type ?? "source") === "source"
            ? h("button", { type: "button", "aria-label": `Deploy ${c.name}`, onclick: () => void openDeploy(c, deploy) }, "Deploy")
            : h("p", { class: "hint" }, "An action: add it as a step of a workflow."),
        ),
      ),
    );
  };
  search.addEventListener("input", show);
  kind.addEventListener("change", show);
  show();
  return h(
    "div",
    {},
    h("h2", {}, "Registry"),
    h(
      "div",
      { class: "filters" },
      h("label", { for: "registry-search" }, "Search the registry"),
      search,
      h("label", { for: "registry-type" }, "Show"),
      kind,
    ),
    count,
    deploy,
    components.length ? list : h("p", {}, "Nothing is published yet: an operator adds packages with `sluice registry add`."),
  );
}

/** The deploy form of a published source: its props, a name, Deploy. */
async function openDeploy(published: Published, into: HTMLElement): Promise<void> {
  mount(into, h("p", {}, "loading…"));
  try {
    const { data: component } = await api("GET", `/components/registry/${enc(published.key)}`);
    const form = propsForm({ props: component.configurable_props, componentPath: `/components/registry/${enc(published.key)}` });
    const name = h("input", { id: "deploy-name", autocomplete: "off", value: published.name });
    const status = h("div", { role: "status" });
    const title = h("h3", { tabindex: -1 }, `Deploy ${published.name}`);
    mount(
      into,
      h(
        "form",
        {
          class: "deploy",
          onsubmit: async (event: Event) => {
            event.preventDefault();
            try {
              const configured = form.value();
              status.replaceChildren("deploying…");
              const { data } = await api("POST", "/sources", {
                component_id: published.key,
                name: name.value.trim() || undefined,
                configured_props: configured,
              });
              go(`/sources/${data.id}`);
            } catch (error) {
              status.replaceChildren(errorBox(error));
            }
          },
        },
        title,
        published.description ? h("p", {}, published.description) : null,
        h("label", { for: "deploy-name" }, "Source name"),
        name,
        form.element,
        h(
          "div",
          { class: "actions" },
          h("button", { type: "submit" }, "Deploy source"),
          h("button", { type: "button", onclick: () => mount(into) }, "Cancel"),
        ),
        status,
      ),
    );
    title.focus();
  } catch (error) {
    mount(into, errorBox(error));
  }
}
