// Sources: the list, and a new source from code with its props form.
import { api } from "../api.js";
import { h, time } from "../dom.js";
import { sourceForm } from "../forms/source-form.js";
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
  return h(
    "section",
    { class: "new-source", "aria-labelledby": "new-source-title" },
    h("h3", { id: "new-source-title" }, "New source"),
    h("p", {}, "Write a component, or ", h("a", { href: "#/registry" }, "deploy a published one from the registry"), "."),
    sourceForm({
      code: EXAMPLE,
      submitLabel: "Deploy",
      save: async (input) => {
        const { data } = await api("POST", "/sources", input);
        go(`/sources/${data.id}`);
      },
    }),
  );
}
