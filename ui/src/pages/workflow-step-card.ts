// One step in the workflow builder: its name, then either a code editor (code step) or the
// action it runs (from the registry), and its props. The builder owns the order; the card
// gives back the step as POST/PUT /v1/workflows take it.
import { api, enc } from "../api.js";
import { errorBox, h, json, mount } from "../dom.js";
import { codeEditor, type CodeEditor } from "../editor.js";
import { propsForm, type PropsForm } from "../forms/props-form.js";
import type { ConfigurableProp } from "../forms/prop-types.js";

export const CODE_STEP = `export default defineComponent({
  async run({ steps, $ }) {
    // steps.trigger.event is the event that started the workflow.
    return steps.trigger.event;
  },
});
`;

/** A step as the API shows it (DESIGN: {id, name, type, code? | action?/component_id?, props}). */
export interface StepData {
  id?: string;
  name: string;
  type?: "code" | "action";
  code?: string;
  action?: string;
  version?: string;
  component_id?: string;
  props?: Record<string, unknown>;
  /** The props a code step declares, where the API gives them: then they get a generated form. */
  configurable_props?: ConfigurableProp[];
}

export interface StepCard {
  element: HTMLElement;
  /** The name field's current text. */
  name(): string;
  /** The step as the API takes it; throws an Error naming the step when a field cannot be read. */
  value(): Record<string, unknown>;
  /** Called by the builder after a move, to label the buttons with the position. */
  place(index: number, count: number): void;
  /** The card's own buttons, so the builder can keep the focus on the one used. */
  buttons: { up: HTMLButtonElement; down: HTMLButtonElement; remove: HTMLButtonElement; test: HTMLButtonElement };
}

export interface StepCardHandlers {
  move(card: StepCard, by: -1 | 1): void;
  remove(card: StepCard): void;
  test(card: StepCard): void;
}

let cardCount = 0;

export function stepCard(step: StepData, handlers: StepCardHandlers): StepCard {
  const n = ++cardCount;
  const isAction = step.type === "action" || step.action !== undefined || step.component_id !== undefined;
  const nameInput = h("input", { id: `step-name-${n}`, value: step.name, autocomplete: "off", spellcheck: false });
  const heading = h("h4", {}, step.name);
  let position: [number, number] = [0, 1];
  nameInput.addEventListener("input", () => {
    heading.textContent = nameInput.value || "(unnamed step)";
    card.place(...position);
  });
  const body = isAction ? actionBody(step, n) : codeBody(step, n);
  const up = h("button", { type: "button" }, "Move up");
  const down = h("button", { type: "button" }, "Move down");
  const remove = h("button", { type: "button", class: "danger" }, "Remove");
  const test = h("button", { type: "button" }, "Test through this step");
  const element = h(
    "section",
    { class: "step-card", "aria-labelledby": `step-title-${n}` },
    h("header", {}, h("span", { class: "step-kind" }, isAction ? "action" : "code"), heading),
    h("div", { class: "field" }, h("label", { for: nameInput.id }, "Step name"), nameInput),
    body.element,
    h("div", { class: "actions step-actions" }, up, down, remove, test),
  );
  heading.id = `step-title-${n}`;
  const card: StepCard = {
    element,
    name: () => nameInput.value.trim(),
    value() {
      const name = nameInput.value.trim();
      const out: Record<string, unknown> = { ...(step.id ? { id: step.id } : {}), name, ...body.value(name) };
      return out;
    },
    place(index, count) {
      position = [index, count];
      const label = nameInput.value.trim() || `step ${index + 1}`;
      up.disabled = index === 0;
      down.disabled = index === count - 1;
      up.setAttribute("aria-label", `Move ${label} up`);
      down.setAttribute("aria-label", `Move ${label} down`);
      remove.setAttribute("aria-label", `Remove ${label}`);
      test.setAttribute("aria-label", `Test through ${label}`);
    },
    buttons: { up, down, remove, test },
  };
  up.addEventListener("click", () => handlers.move(card, -1));
  down.addEventListener("click", () => handlers.move(card, 1));
  remove.addEventListener("click", () => handlers.remove(card));
  test.addEventListener("click", () => handlers.test(card));
  return card;
}

interface StepBody {
  element: HTMLElement;
  value(name: string): Record<string, unknown>;
}

/** A code step: the editor, and its configured props as JSON (the code declares them). */
function codeBody(step: StepData, n: number): StepBody {
  const editor: CodeEditor = codeEditor(step.code ?? CODE_STEP, "Step code");
  const form = step.configurable_props?.length ? propsForm({ props: step.configurable_props, values: step.props }) : undefined;
  const props = h("textarea", {
    id: `step-props-${n}`,
    rows: 2,
    placeholder: '{"prop": "value"}',
    value: step.props && Object.keys(step.props).length ? json(step.props) : undefined,
  });
  return {
    element: h(
      "div",
      {},
      h("div", { class: "field" }, h("span", { id: `step-code-${n}` }, "Code"), editor.element),
      form ? form.element : h("div", { class: "field" }, h("label", { for: props.id }, "Props of the code step (JSON, optional)"), props),
    ),
    value(name) {
      const out: Record<string, unknown> = { code: editor.value() };
      if (form) {
        try {
          const values = form.value();
          if (Object.keys(values).length) out.props = values;
        } catch (error) {
          throw new Error(`step ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      } else if (props.value.trim()) {
        try {
          out.props = JSON.parse(props.value);
        } catch {
          throw new Error(`step ${name}: its props are not valid JSON`);
        }
      }
      return out;
    },
  };
}

/** An action step: the registry component it runs, and a props form from its configurable_props. */
function actionBody(step: StepData, n: number): StepBody {
  const propsHolder = h("div", {}, "loading the action's props…");
  let form: PropsForm | undefined;
  const key = step.action;
  const described = h("p", { class: "action-name" }, key ? h("code", {}, key) : (step.component_id ?? ""));
  const load = async () => {
    try {
      const path = key ? `/components/registry/${enc(key)}` : `/components/${enc(step.component_id ?? "")}`;
      const { data } = await api<{ data: { name: string; version: string; configurable_props: ConfigurableProp[] } }>("GET", path);
      described.append(` — ${data.name} ${data.version}`);
      form = propsForm({ props: data.configurable_props ?? [], values: step.props, componentPath: path });
      mount(propsHolder, form.element);
    } catch (error) {
      mount(propsHolder, errorBox(error));
    }
  };
  void load();
  return {
    element: h("div", { id: `step-action-${n}` }, described, propsHolder),
    value(name) {
      const out: Record<string, unknown> = key ? { action: key } : { component_id: step.component_id };
      if (key && step.version) out.version = step.version;
      try {
        const props = form ? form.value() : step.props;
        if (props && Object.keys(props).length) out.props = props;
      } catch (error) {
        throw new Error(`step ${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
      return out;
    },
  };
}
