// The workflow builder (#/workflows/new, #/workflows/<id>/edit): name, trigger and an ordered
// list of steps, each a code step or a registry action, added, removed, moved and renamed with
// buttons (the focus stays on the button used, so the keyboard can keep moving a step). Saves
// with POST or PUT /v1/workflows; tests the steps as they stand with the test panel.
import { api, enc } from "../api.js";
import { errorBox, h, mount } from "../dom.js";
import { go } from "../router.js";
import { actionPicker } from "./workflow-action-picker.js";
import { stepCard, type StepCard, type StepData } from "./workflow-step-card.js";
import { testPanel } from "./workflow-test-panel.js";
import { triggerForm, type Trigger } from "./workflow-trigger.js";

interface WorkflowData {
  id: string;
  name: string;
  active: boolean;
  trigger?: Trigger;
  steps: StepData[];
  endpoint_url?: string;
  email_address?: string;
}

export async function workflowBuilderPage(id?: string): Promise<HTMLElement> {
  const workflow: WorkflowData | undefined = id ? (await api("GET", `/workflows/${enc(id)}`)).data : undefined;
  const name = h("input", { id: "workflow-name", value: workflow?.name, placeholder: "My workflow", autocomplete: "off" });
  const trigger = triggerForm(workflow?.trigger, workflow);
  const list = h("div", { class: "steps" });
  const status = h("div", { "aria-live": "polite" });
  const cards: StepCard[] = [];
  const announce = (text: string) => mount(status, h("p", {}, text));

  const place = () => {
    list.replaceChildren(...cards.map((card) => card.element));
    cards.forEach((card, index) => card.place(index, cards.length));
    if (cards.length === 0) list.append(h("p", {}, "No steps yet: add a code step or an action."));
  };
  const handlers = {
    move(card: StepCard, by: -1 | 1) {
      const from = cards.indexOf(card);
      const to = from + by;
      if (to < 0 || to >= cards.length) return;
      cards.splice(from, 1);
      cards.splice(to, 0, card);
      place();
      // Moving a node drops its focus; give it back to the same button, or its twin at the ends.
      const button = by < 0 ? card.buttons.up : card.buttons.down;
      (button.disabled ? (by < 0 ? card.buttons.down : card.buttons.up) : button).focus();
      announce(`${card.name()} is now step ${to + 1} of ${cards.length}.`);
    },
    remove(card: StepCard) {
      const index = cards.indexOf(card);
      cards.splice(index, 1);
      place();
      const next = cards[Math.min(index, cards.length - 1)];
      (next ? next.buttons.remove : addCode).focus();
      announce(`${card.name()} removed.`);
    },
    test(card: StepCard) {
      void tester.run(card.name());
    },
  };
  const add = (step: StepData) => {
    const card = stepCard(step, handlers);
    cards.push(card);
    place();
    return card;
  };
  // Step names are unique in a workflow (steps.<name>): step_<n> for code, the action's key otherwise.
  const unusedName = (base?: string) => {
    const taken = new Set(cards.map((card) => card.name()));
    if (base && !taken.has(base)) return base;
    let n = base ? 2 : cards.length + 1;
    while (taken.has(base ? `${base}_${n}` : `step_${n}`)) n++;
    return base ? `${base}_${n}` : `step_${n}`;
  };
  const addCode = h("button", { type: "button" }, "Add a code step");
  addCode.addEventListener("click", () => add({ name: unusedName(), type: "code" }).element.querySelector("input")?.focus());
  const picker = actionPicker((action) => {
    const card = add({
      name: unusedName(action.key.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=\d)/, "_")),
      type: "action",
      action: action.key,
    });
    card.element.querySelector("input")?.focus();
  });

  for (const step of workflow?.steps ?? [{ name: "step_1", type: "code" }]) add(step);

  const stepsPayload = () => cards.map((card) => card.value());
  const tester = testPanel(workflow?.id, stepsPayload);

  const save = async (event: Event) => {
    event.preventDefault();
    announce("saving…");
    try {
      const body: Record<string, unknown> = { name: name.value.trim() || "Untitled workflow", steps: stepsPayload() };
      const chosen = trigger.value();
      // An HTTP trigger is the default: a server that predates triggers is not sent one.
      if (chosen.type !== "http" || workflow?.trigger) body.trigger = chosen;
      const { data } = workflow ? await api("PUT", `/workflows/${enc(workflow.id)}`, body) : await api("POST", "/workflows", body);
      go(`/workflows/${data.id}`, true);
    } catch (error) {
      mount(status, errorBox(error));
    }
  };

  return h(
    "div",
    { class: "builder" },
    h("h2", {}, workflow ? `Edit workflow ${workflow.name}` : "New workflow"),
    h(
      "form",
      { onsubmit: save },
      h("div", { class: "field" }, h("label", { for: name.id }, "Workflow name"), name),
      trigger.element,
      h("h3", {}, "Steps"),
      list,
      h("div", { class: "actions" }, addCode, picker.button),
      picker.element,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit" }, workflow ? "Save" : "Create workflow"),
        workflow ? h("a", { href: `#/workflows/${workflow.id}` }, "Cancel") : h("a", { href: "#/workflows" }, "Cancel"),
      ),
      status,
    ),
    tester.element,
  );
}
