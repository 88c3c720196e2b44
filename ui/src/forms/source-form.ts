// A source's code and props, to create a source or change one: the code in the editor is
// saved as a component (POST /components), whose configurable_props become the props form;
// then the source is created or updated with that component and the form's values. A code
// refusal that is a syntax error is marked at its line in the editor.
import { api } from "../api.js";
import { errorBox, h, mount } from "../dom.js";
import { codeEditor, lineInMessage, type CodeEditor } from "../editor.js";
import { propsForm, type ConfigurableProp, type PropsForm } from "./props-form.js";

export interface SourceFormOptions {
  code: string;
  /** The component the code is saved as already, with its props (editing a source). */
  component?: { id: string; configurable_props: ConfigurableProp[] };
  values?: Record<string, unknown>;
  name?: string;
  submitLabel: string;
  /** Creates or updates the source; its error is shown under the form. */
  save(input: { component_id: string; configured_props: Record<string, unknown>; name?: string }): Promise<void>;
}

interface Saved {
  code: string;
  id: string;
  props: ConfigurableProp[];
}

const TAKES_NO_VALUE = new Set(["alert", "$.interface.http", "$.interface.apphook", "$.service.db", "dir"]);

export function sourceForm(options: SourceFormOptions): HTMLElement {
  const editor = codeEditor(options.code, "component code");
  const name = h("input", { id: "source-name", name: "name", autocomplete: "off", value: options.name });
  const propsArea = h("div", { class: "props-area" });
  const status = h("div", { role: "status", class: "form-status" });
  let saved: Saved | undefined = options.component
    ? { code: options.code, id: options.component.id, props: options.component.configurable_props }
    : undefined;
  let form: PropsForm | undefined;
  let values = options.values ?? {};

  const showProps = (component: Saved) => {
    // Values typed in so far carry over to a form for the new code.
    if (form) {
      try {
        values = { ...values, ...form.value() };
      } catch {
        // Unreadable values are left behind with the old form.
      }
    }
    form = propsForm({ props: component.props, values, componentPath: `/components/${encodeURIComponent(component.id)}` });
    mount(propsArea, form.element);
  };
  if (saved) showProps(saved);
  else mount(propsArea, h("p", { class: "hint" }, "Check the code to fill in its props."));

  /** Saves the code as a component unless it already is; undefined when the code was refused. */
  const check = async (): Promise<{ component: Saved; propsChanged: boolean } | undefined> => {
    const code = editor.value();
    if (saved && saved.code === code) return { component: saved, propsChanged: false };
    editor.clearErrors();
    try {
      const { data } = await api("POST", "/components", { component_code: code });
      const before = JSON.stringify(saved?.props ?? null);
      saved = { code, id: data.id, props: data.configurable_props };
      const propsChanged = before !== JSON.stringify(saved.props);
      if (propsChanged || !form) showProps(saved);
      return { component: saved, propsChanged };
    } catch (error) {
      showCodeError(editor, status, error);
      return undefined;
    }
  };

  const element = h(
    "form",
    {
      class: "source-form",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        status.replaceChildren("saving the code…");
        const checked = await check();
        if (!checked) return;
        // New props that take values are shown for review before anything is deployed.
        if (checked.propsChanged && checked.component.props.some((p) => !TAKES_NO_VALUE.has(p.type))) {
          status.replaceChildren(h("p", {}, "The code's props are shown below: fill them in, then ", options.submitLabel, " again."));
          return;
        }
        try {
          const configured = form!.value();
          status.replaceChildren("deploying…");
          await options.save({ component_id: checked.component.id, configured_props: configured, name: name.value.trim() || undefined });
          status.replaceChildren();
        } catch (error) {
          status.replaceChildren(errorBox(error));
        }
      },
    },
    h("label", { for: "source-name" }, "Name", h("span", { class: "optional" }, " (optional)")),
    name,
    h("span", { class: "label", id: "code-label" }, "Code"),
    h("small", {}, "Tab leaves the editor; Ctrl-] and Ctrl-[ indent and outdent a line."),
    editor.element,
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          onclick: async () => {
            status.replaceChildren("checking…");
            if (await check()) status.replaceChildren("The code is fine.");
          },
        },
        "Check code",
      ),
    ),
    propsArea,
    h("div", { class: "actions" }, h("button", { type: "submit" }, options.submitLabel)),
    status,
  );
  return element;
}

/** A refusal of the code: a syntax error is marked at the line the API names, else where the grammar finds one. */
function showCodeError(editor: CodeEditor, status: HTMLElement, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const syntax = /SyntaxError/.test(message);
  const line = syntax ? (lineInMessage(message) ?? editor.firstErrorLine()) : undefined;
  if (line !== undefined) {
    editor.markError(line, message);
    status.replaceChildren(errorBox(new Error(`Line ${line}: ${message}`)));
  } else {
    status.replaceChildren(errorBox(error));
  }
}
