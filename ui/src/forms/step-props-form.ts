// A minimal props form for workflow steps, generated from a component's configurable_props:
// one labelled field per prop (description beside it, default or current value filled in),
// options lists as selects, booleans as checkboxes, numbers as number fields, app props as a
// pick of the account's connected accounts, `alert` props as notes, and anything else as JSON.
// Its interface is that of the full props form (propsForm: element and value()), so the
// builder can take either.
import { api } from "../api.js";
import { h, json } from "../dom.js";

export interface ConfigurableProp {
  name: string;
  type: string;
  label?: string;
  description?: string;
  optional?: boolean;
  default?: unknown;
  options?: unknown[];
  app?: string;
  alertType?: string;
  content?: string;
}

export interface PropsForm {
  element: HTMLElement;
  /** configured props; throws an Error naming the field when a value cannot be read. */
  value(): Record<string, unknown>;
}

type Read = () => unknown;
let formCount = 0;

export function stepPropsForm(options: { props: ConfigurableProp[]; values?: Record<string, unknown> }): PropsForm {
  const form = ++formCount;
  const values = options.values ?? {};
  const readers: [string, Read][] = [];
  const fields = options.props.map((prop, index) => {
    if (prop.type === "alert") return h("p", { class: "note", role: "note" }, prop.content ?? prop.description ?? "");
    // Interfaces and services ($.interface.http, $.service.db) take no value from the user.
    if (prop.type.startsWith("$.")) return null;
    const id = `step-prop-${form}-${index}`;
    const current = prop.name in values ? values[prop.name] : prop.default;
    const [input, read] = fieldFor(prop, id, current);
    readers.push([prop.name, read]);
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, prop.label ?? prop.name, prop.optional ? " (optional)" : ""),
      input,
      prop.description ? h("small", { class: "description" }, prop.description) : null,
    );
  });
  return {
    element: h("fieldset", { class: "props" }, h("legend", {}, "Props"), fields.length ? fields : h("p", {}, "This step has no props.")),
    value() {
      const out: Record<string, unknown> = {};
      for (const [name, read] of readers) {
        const value = read();
        if (value !== undefined) out[name] = value;
      }
      return out;
    },
  };
}

function optionValue(option: unknown): [string, string] {
  if (option && typeof option === "object" && "value" in option) {
    const { label, value } = option as { label?: unknown; value: unknown };
    return [JSON.stringify(value), String(label ?? value)];
  }
  return [JSON.stringify(option), String(option)];
}

function fieldFor(prop: ConfigurableProp, id: string, current: unknown): [HTMLElement, Read] {
  if (Array.isArray(prop.options) && prop.options.length > 0) {
    const select = h(
      "select",
      { id },
      h("option", { value: "" }, "—"),
      prop.options.map((option) => {
        const [value, label] = optionValue(option);
        return h("option", { value, selected: value === JSON.stringify(current) }, label);
      }),
    );
    return [select, () => (select.value === "" ? undefined : JSON.parse(select.value))];
  }
  if (prop.type === "app") return appField(prop, id, current);
  if (prop.type === "boolean") {
    const box = h("input", { id, type: "checkbox", checked: current === true });
    return [box, () => box.checked];
  }
  if (prop.type === "integer" || prop.type === "number") {
    const input = h("input", { id, type: "number", value: current === undefined ? undefined : String(current) });
    return [input, () => (input.value === "" ? undefined : Number(input.value))];
  }
  if (prop.type === "string") {
    const input = h("input", { id, value: typeof current === "string" ? current : undefined });
    return [input, () => (input.value === "" ? undefined : input.value)];
  }
  const area = h("textarea", { id, rows: 3, placeholder: "JSON", value: current === undefined ? undefined : json(current) });
  return [
    area,
    () => {
      if (area.value.trim() === "") return undefined;
      try {
        return JSON.parse(area.value);
      } catch {
        throw new Error(`prop ${prop.name}: not valid JSON`);
      }
    },
  ];
}

/** An app prop names a connected account: `{authProvisionId}`. */
function appField(prop: ConfigurableProp, id: string, current: unknown): [HTMLElement, Read] {
  const chosen = (current as { authProvisionId?: string } | undefined)?.authProvisionId;
  const select = h("select", { id }, h("option", { value: "" }, "— pick a connected account —"));
  api<{ data: { id: string; app: string; name: string | null }[] }>("GET", "/users/me/accounts?limit=100")
    .then(({ data }) => {
      for (const account of data.filter((a) => !prop.app || a.app === prop.app)) {
        select.append(h("option", { value: account.id, selected: account.id === chosen }, account.name || account.id));
      }
    })
    .catch((error) => select.after(h("small", { class: "error" }, String(error.message ?? error))));
  return [select, () => (select.value ? { authProvisionId: select.value } : undefined)];
}
