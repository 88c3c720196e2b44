// Sources: the list, and a new source from code.
import { api } from "../api.js";
import { errorBox, h, time } from "../dom.js";
import { codeEditor } from "../editor.js";
import { go } from "../router.js";

const EXAMPLE = `export default {
  name: "http example",
  version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) {
    console.log("received", event.method);
    this.$emit(event.body, { summary: "from http" });
  },
};
`;

export async function sourcesPage(): Promise<HTMLElement> {
  const { data } = await api<{ data: any[] }>("GET", "/users/me/sources?limit=100");
  const rows = data.map((s) =>
    h(
      "tr",
      {},
      h("td", {}, h("a", { href: `#/sources/${s.id}` }, s.name || s.id)),
      h("td", {}, s.id),
      h("td", {}, s.active ? "active" : "inactive"),
      h("td", {}, time(s.created_at)),
    ),
  );
  return h(
    "div",
    {},
    h("h2", {}, "Sources"),
    data.length
      ? h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Id"), h("th", {}, "State"), h("th", {}, "Created"))),
          h("tbody", {}, rows),
        )
      : h("p", {}, "No sources yet."),
    newSourceForm(),
  );
}

function newSourceForm(): HTMLElement {
  const editor = codeEditor(EXAMPLE, "component code");
  const name = h("input", { name: "name", placeholder: "name (optional)" });
  const props = h("textarea", { name: "configured_props", rows: 3, placeholder: '{"interval_seconds": 60}' });
  const status = h("div");
  return h(
    "form",
    {
      class: "new-source",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        status.replaceChildren("deploying…");
        try {
          const body: Record<string, unknown> = { component_code: editor.value() };
          if (name.value.trim()) body.name = name.value.trim();
          if (props.value.trim()) body.configured_props = JSON.parse(props.value);
          const { data } = await api("POST", "/sources", body);
          go(`/sources/${data.id}`);
        } catch (error) {
          status.replaceChildren(errorBox(error));
        }
      },
    },
    h("h3", {}, "New source"),
    h("label", {}, "Name ", name),
    h("div", {}, "Code"),
    editor.element,
    h("label", {}, "Props (JSON) ", props),
    h("button", { type: "submit" }, "Deploy"),
    status,
  );
}
