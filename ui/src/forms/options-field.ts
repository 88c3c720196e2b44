// A prop whose options come from the component's async options(): loaded through the API
// (POST …/props/{prop}/options {configured_props, prevContext?, query?} → {options, context}),
// run in a runner with the props configured so far. "Load more" passes the context back as
// prevContext, as Pipedream pages them; a prop with useQuery gets a search box. The API's
// refusal (no network, a bad prop) shows beside the field; a value can still be typed in.
import { api } from "../api.js";
import { errorBox, h } from "../dom.js";
import { optionParts, type ConfigurableProp, type Field } from "./prop-types.js";

export function optionsField(
  prop: ConfigurableProp,
  id: string,
  initial: unknown,
  path: string,
  configured: () => Record<string, unknown>,
): Field {
  const multiple = prop.type.endsWith("[]");
  const values: unknown[] = [];
  const select = h("select", { id, name: prop.name, multiple });
  const typed = h("input", {
    id: `${id}-typed`,
    type: "text",
    "aria-label": `${prop.label ?? prop.name}: a value typed in`,
    placeholder: "or type a value",
  });
  const query = prop.useQuery ? h("input", { id: `${id}-query`, type: "search", "aria-label": `search ${prop.label ?? prop.name}` }) : null;
  const status = h("div", { class: "field-status", role: "status" });
  let context: unknown = undefined;
  const add = (option: unknown, selected = false) => {
    const { label, value } = optionParts(option);
    values.push(value);
    select.append(h("option", { value: String(values.length - 1), selected }, label));
  };
  const reset = () => {
    values.length = 0;
    select.replaceChildren();
    if (!multiple) select.append(h("option", { value: "" }, prop.optional ? "(not set)" : "(choose)"));
    // The current value stays pickable before the options are loaded.
    for (const value of initial === undefined ? [] : multiple && Array.isArray(initial) ? initial : [initial]) add(value, true);
  };
  const load = async (more: boolean) => {
    status.replaceChildren("loading options…");
    try {
      const body: Record<string, unknown> = { configured_props: configured() };
      if (more && context !== undefined && context !== null) body.prevContext = context;
      if (query?.value.trim()) body.query = query.value.trim();
      const { options, context: next } = await api<{ options: unknown[]; context?: unknown }>("POST", path, body);
      if (!more) reset();
      const have = new Set(values.map((v) => JSON.stringify(v)));
      for (const option of options ?? []) if (!have.has(JSON.stringify(optionParts(option).value))) add(option);
      context = next;
      const n = options?.length ?? 0;
      status.replaceChildren(`${n} ${n === 1 ? "option" : "options"} loaded`);
      more_.hidden = next === undefined || next === null || !options?.length;
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  const loadButton = h("button", { type: "button", onclick: () => void load(false) }, `Load options for ${prop.label ?? prop.name}`);
  const more_ = h("button", { type: "button", hidden: true, onclick: () => void load(true) }, "Load more");
  reset();
  return {
    element: h("div", { class: "options-field" }, select, query, loadButton, more_, typed, status),
    read: () => {
      if (typed.value.trim())
        return multiple
          ? typed.value
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean)
          : typed.value.trim();
      const picked = Array.from(select.selectedOptions)
        .filter((o) => o.value !== "")
        .map((o) => values[Number(o.value)]);
      return multiple ? (picked.length ? picked : undefined) : picked[0];
    },
  };
}
