// A form generated from a component's configurable_props, for sources and workflow steps:
// one labelled field per prop (its description beside it), defaults and current values filled
// in, optional props marked, options lists as selects, timers as an interval or a cron
// schedule, app props as a pick of the account's connected accounts, async options loaded
// through the API (with "Load more" and a search where the prop asks for one), and `alert`
// props shown as notes. A prop marked reloadProps asks the API for the props anew when it
// changes (POST …/props/reload: the props additionalProps() adds for the values so far).
// `value()` gives configured_props as the API takes them.
import { api } from "../api.js";
import { errorBox, h, json, mount, type Child } from "../dom.js";
import { optionParts, type ConfigurableProp, type Field } from "./prop-types.js";
import { timerField } from "./timer-field.js";
import { optionsField } from "./options-field.js";

export type { ConfigurableProp };

export interface Account {
  id: string;
  app: string;
  name: string | null;
}

export interface PropsFormOptions {
  props: ConfigurableProp[];
  /** The current configured_props (a source's, as the API shows them). */
  values?: Record<string, unknown>;
  /** Where the component is, for async options: "/components/sc_…" or "/components/registry/<key>". */
  componentPath?: string;
  /** The account's connected accounts; read from the API when not given. */
  accounts?: Account[];
}

export interface PropsForm {
  element: HTMLElement;
  /** configured_props; throws an Error naming the field when a value cannot be read. */
  value(): Record<string, unknown>;
}

let formCount = 0;

export function propsForm(options: PropsFormOptions): PropsForm {
  let values = options.values ?? {};
  const fields = new Map<string, Field>();
  let accounts: Promise<Account[]> | undefined = options.accounts ? Promise.resolve(options.accounts) : undefined;
  const accountList = () => (accounts ??= api<{ data: Account[] }>("GET", "/users/me/accounts?limit=100").then((r) => r.data));
  const configured = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, field] of fields) {
      try {
        const value = field.read();
        if (value !== undefined) out[name] = value;
      } catch {
        // A field not readable yet does not stop another field's options from loading.
      }
    }
    return out;
  };
  const element = h("fieldset", { class: "props" });
  const status = h("div", { class: "field-status", role: "status" });
  /** Fills the form for these props; a prop marked reloadProps asks the API for the props anew when it changes. */
  const build = (props: ConfigurableProp[]) => {
    const form = ++formCount;
    fields.clear();
    const children = props.map((prop, index) => {
      const id = `prop-${form}-${index}`;
      const field = fieldFor(prop, id, values[prop.name], { accountList, configured, componentPath: options.componentPath });
      if (!field) return note(prop, values[prop.name]);
      fields.set(prop.name, field);
      if (prop.reloadProps && options.componentPath) field.element.addEventListener("change", () => void reload(prop.name));
      return field.element;
    });
    mount(element, h("legend", {}, "Props"), children.length ? children : h("p", {}, "This component has no props."), status);
  };
  // Pipedream's additionalProps(): the props the component adds for the values configured so far.
  const reload = async (changed: string) => {
    values = { ...values, ...configured() };
    status.replaceChildren("reloading the props…");
    try {
      const { configurable_props } = await api<{ configurable_props: ConfigurableProp[] }>(
        "POST",
        `${options.componentPath}/props/reload`,
        {
          configured_props: values,
        },
      );
      build(configurable_props);
      // The changed field was rebuilt: the keyboard stays where it was.
      const control = fields.get(changed)?.element;
      (control?.matches("input, select, textarea") ? control : control?.querySelector<HTMLElement>("input, select, textarea"))?.focus();
      status.replaceChildren("The props were reloaded.");
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  build(options.props);
  return {
    element,
    value() {
      const out: Record<string, unknown> = {};
      for (const [name, field] of fields) {
        const value = field.read();
        if (value !== undefined) out[name] = value;
      }
      return out;
    },
  };
}

interface FieldContext {
  accountList(): Promise<Account[]>;
  configured(): Record<string, unknown>;
  componentPath?: string;
}

/** What a prop that takes no value shows instead of a field. */
function note(prop: ConfigurableProp, current: unknown): HTMLElement {
  const label = prop.label ?? prop.name;
  const text = (() => {
    switch (prop.type) {
      case "alert":
        return prop.content ?? "";
      case "$.interface.http": {
        const url = (current as { endpoint_url?: string } | undefined)?.endpoint_url;
        return url ? `HTTP endpoint: ${url}` : `${label}: an HTTP endpoint URL is made when the source is deployed.`;
      }
      case "$.interface.apphook":
        return `${label}: runs on events of the account picked for ${prop.appProp ?? "its app prop"}.`;
      case "$.service.db":
        return `${label}: the source's own key-value store.`;
      case "dir":
        return `${label}: a folder of files kept for the source.`;
      default:
        return `${label}: ${prop.type}`;
    }
  })();
  return h(
    "div",
    { class: prop.type === "alert" ? `note alert-${prop.alertType ?? "info"}` : "note", role: "note" },
    prop.type === "alert" && prop.alertType ? h("b", {}, `${prop.alertType}: `) : null,
    text,
  );
}

function fieldFor(prop: ConfigurableProp, id: string, current: unknown, ctx: FieldContext): Field | undefined {
  const initial = current ?? prop.default;
  switch (prop.type) {
    case "alert":
    case "$.interface.http":
    case "$.interface.apphook":
    case "$.service.db":
    case "dir":
      return undefined;
    case "$.interface.timer":
      return labelled(prop, id, timerField(id, initial));
    case "app":
      return labelled(prop, id, appField(prop, id, current, ctx));
  }
  if (prop.remoteOptions && ctx.componentPath)
    return labelled(
      prop,
      id,
      optionsField(prop, id, initial, `${ctx.componentPath}/props/${encodeURIComponent(prop.name)}/options`, ctx.configured),
    );
  if (Array.isArray(prop.options) && prop.options.length) return labelled(prop, id, staticOptions(prop, id, initial));
  return labelled(prop, id, plainField(prop, id, initial));
}

/** Wraps a control with its label, description and "optional" mark; the label names the control. */
function labelled(prop: ConfigurableProp, id: string, control: Field & { extra?: Child }): Field {
  const described = prop.description ? `${id}-desc` : undefined;
  const input = control.element.querySelector("input, select, textarea") ?? control.element;
  if (described) input.setAttribute("aria-describedby", described);
  if (!prop.optional && !["app", "boolean"].includes(prop.type)) input.setAttribute("aria-required", "true");
  return {
    element: h(
      "div",
      { class: "prop" },
      h("label", { for: id }, prop.label ?? prop.name, prop.optional ? h("span", { class: "optional" }, " (optional)") : null),
      prop.description ? h("small", { id: described, class: "description" }, prop.description) : null,
      control.element,
    ),
    read: control.read,
  };
}

/** Text, numbers, booleans, lists of strings and JSON. */
function plainField(prop: ConfigurableProp, id: string, initial: unknown): Field {
  const label = prop.label ?? prop.name;
  if (prop.type === "boolean") {
    const select = h(
      "select",
      { id, name: prop.name },
      h("option", { value: "" }, prop.optional ? "(not set)" : "(default)"),
      h("option", { value: "true" }, "true"),
      h("option", { value: "false" }, "false"),
    );
    select.value = initial === true ? "true" : initial === false ? "false" : "";
    return { element: select, read: () => (select.value === "" ? undefined : select.value === "true") };
  }
  if (prop.type === "integer") {
    const input = h("input", { id, name: prop.name, type: "number", step: 1, min: prop.min, max: prop.max });
    if (typeof initial === "number") input.value = String(initial);
    return {
      element: input,
      read: () => {
        if (input.value.trim() === "") return undefined;
        const n = Number(input.value);
        if (!Number.isInteger(n)) throw new Error(`${label}: a whole number is needed`);
        return n;
      },
    };
  }
  if (prop.type.endsWith("[]")) {
    const area = h("textarea", { id, name: prop.name, rows: 3, placeholder: "one per line" });
    if (Array.isArray(initial)) area.value = initial.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n");
    const integers = prop.type === "integer[]";
    return {
      element: area,
      read: () => {
        const lines = area.value
          .split("\n")
          .map((line) => line.trim())
          .filter(Boolean);
        if (!lines.length) return undefined;
        if (!integers) return lines;
        return lines.map((line) => {
          const n = Number(line);
          if (!Number.isInteger(n)) throw new Error(`${label}: "${line}" is not a whole number`);
          return n;
        });
      },
    };
  }
  if (prop.type === "string") {
    const input = h("input", { id, name: prop.name, type: prop.secret ? "password" : "text", autocomplete: "off" });
    if (initial !== undefined && initial !== null) input.value = String(initial);
    return { element: input, read: () => (input.value === "" ? undefined : input.value) };
  }
  // object, any, and types this form does not know: JSON.
  const area = h("textarea", { id, name: prop.name, rows: 3, placeholder: "JSON" });
  if (initial !== undefined) area.value = json(initial);
  return {
    element: area,
    read: () => {
      if (area.value.trim() === "") return undefined;
      try {
        return JSON.parse(area.value);
      } catch {
        throw new Error(`${label}: not valid JSON`);
      }
    },
  };
}

/** A select over a static options list; several values for array props. */
function staticOptions(prop: ConfigurableProp, id: string, initial: unknown): Field {
  const multiple = prop.type.endsWith("[]");
  const parts = (prop.options ?? []).map(optionParts);
  const select = h(
    "select",
    { id, name: prop.name, multiple },
    multiple ? null : h("option", { value: "" }, prop.optional ? "(not set)" : "(choose)"),
    parts.map((part, index) => h("option", { value: String(index) }, part.label)),
  );
  const chosen = (Array.isArray(initial) ? initial : [initial]).map((v) => JSON.stringify(v));
  for (const option of Array.from(select.options)) {
    if (option.value !== "" && chosen.includes(JSON.stringify(parts[Number(option.value)]!.value))) option.selected = true;
  }
  return {
    element: select,
    read: () => {
      const picked = Array.from(select.selectedOptions)
        .filter((o) => o.value !== "")
        .map((o) => parts[Number(o.value)]!.value);
      if (multiple) return picked.length ? picked : undefined;
      return picked[0];
    },
  };
}

/** An app prop: one of the account's connected accounts of that app, by name. */
function appField(prop: ConfigurableProp, id: string, current: unknown, ctx: FieldContext): Field {
  const app = prop.app ?? prop.name;
  const chosen = (current as { authProvisionId?: string } | undefined)?.authProvisionId;
  const select = h("select", { id, name: prop.name }, h("option", { value: "" }, "loading accounts…"));
  const status = h("div", { class: "field-status", role: "status" });
  ctx.accountList().then(
    (accounts) => {
      const mine = accounts.filter((a) => a.app === app);
      mount(
        select,
        h("option", { value: "" }, mine.length ? "(choose an account)" : `no ${app} account connected`),
        mine.map((a) => h("option", { value: a.id }, a.name ? `${a.name} (${a.id})` : a.id)),
      );
      if (chosen) select.value = chosen;
      if (!mine.length) status.replaceChildren(h("a", { href: "#/accounts" }, `Connect a ${app} account`));
    },
    (error) => status.replaceChildren(errorBox(error)),
  );
  return {
    element: h("div", { class: "app-field" }, select, status),
    read: () => (select.value ? { authProvisionId: select.value } : undefined),
  };
}
