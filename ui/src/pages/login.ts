// Log in: the key is checked against /users/me before it is kept for this tab.
import { api, session } from "../api.js";
import { errorBox, h } from "../dom.js";

export function loginPage(done: () => void): HTMLElement {
  const input = h("input", {
    type: "password",
    name: "api_key",
    autocomplete: "off",
    required: true,
    id: "api-key",
  });
  const status = h("div");
  const form = h(
    "form",
    {
      class: "login",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        status.replaceChildren();
        const key = input.value.trim();
        try {
          await api("GET", "/users/me", undefined, key);
          session.save(key);
          done();
        } catch (error) {
          status.append(errorBox(error));
        }
      },
    },
    h("h1", {}, "Sluice"),
    h("p", {}, "Log in with an API key. It is kept for this tab only."),
    h("label", { for: "api-key" }, "API key"),
    input,
    h("button", { type: "submit" }, "Log in"),
    status,
  );
  return form;
}
