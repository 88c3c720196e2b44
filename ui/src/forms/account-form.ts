// A new connected account of a key-based app: the app's name, a name for the account, and its
// credentials. When a component describes the app (app-auth-fields.ts), its fields are asked
// for one by one; otherwise the user adds key/value pairs. Values are typed in password fields
// and sent once: the API never gives them back.
import { api } from "../api.js";
import { errorBox, h } from "../dom.js";

let fieldCount = 0;

/** A labelled input: the label is visible, and tied to the input by id. */
export function labelled(text: string, input: HTMLInputElement): HTMLElement {
  input.id ||= `field-${++fieldCount}`;
  return h("div", { class: "field" }, h("label", { for: input.id }, text), input);
}

export function accountForm(known: Map<string, string[]>, saved: (id: string) => void): HTMLElement {
  const app = h("input", { name: "app", required: true, autocomplete: "off", list: "known-apps", placeholder: "e.g. openai" });
  const name = h("input", { name: "name", autocomplete: "off", placeholder: "optional" });
  const fields = h("fieldset", { class: "credentials" });
  const rows = h("div", { class: "rows" });
  const status = h("div", { "aria-live": "polite" });
  const pairs: { key: HTMLInputElement; value: HTMLInputElement }[] = [];

  const addPair = (key = "", fixed = false) => {
    const keyInput = h("input", { name: "field", autocomplete: "off", required: true, value: key, readonly: fixed });
    const valueInput = h("input", { name: "value", type: "password", autocomplete: "off", required: true });
    pairs.push({ key: keyInput, value: valueInput });
    const n = pairs.length;
    rows.append(
      fixed
        ? labelled(key, valueInput)
        : h("div", { class: "pair" }, labelled(`Field ${n} name`, keyInput), labelled(`Field ${n} value`, valueInput)),
    );
  };

  const showFields = () => {
    pairs.length = 0;
    rows.replaceChildren();
    const names = known.get(app.value.trim());
    if (names?.length) {
      fields.replaceChildren(h("legend", {}, `Credentials of ${app.value.trim()}`), rows);
      for (const field of names) addPair(field, true);
    } else {
      fields.replaceChildren(
        h("legend", {}, "Credentials"),
        h("p", { class: "hint" }, "No component describes this app's fields: add each as a name and a value."),
        rows,
        h("button", { type: "button", onclick: () => addPair() }, "Add a field"),
      );
      addPair();
    }
  };
  app.addEventListener("input", showFields);
  showFields();

  return h(
    "form",
    {
      "aria-labelledby": "new-account-heading",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const credentials: Record<string, string> = {};
        for (const pair of pairs) if (pair.key.value.trim()) credentials[pair.key.value.trim()] = pair.value.value;
        try {
          const { data } = await api("POST", "/accounts", { app: app.value.trim(), name: name.value.trim() || null, credentials });
          saved(data.id);
        } catch (error) {
          status.replaceChildren(errorBox(error));
        }
      },
    },
    h("h3", { id: "new-account-heading" }, "Add an account with keys"),
    h(
      "datalist",
      { id: "known-apps" },
      [...known.keys()].map((known) => h("option", { value: known })),
    ),
    labelled("App", app),
    labelled("Account name", name),
    fields,
    h("button", { type: "submit" }, "Save account"),
    status,
  );
}
