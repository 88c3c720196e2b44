// Connected accounts: the list (rename, delete), Connect buttons for the OAuth apps the operator
// configured, and a form for key-based apps. After an OAuth connect the provider's callback
// leads here as #/accounts/<id>, and that account is announced and marked.
import { api, enc } from "../api.js";
import { errorBox, h, time } from "../dom.js";
import { accountForm, labelled } from "../forms/account-form.js";
import { knownAppFields } from "../forms/app-auth-fields.js";
import { go } from "../router.js";

interface Account {
  id: string;
  app: string;
  name: string | null;
  fields: string[];
  refresh_failure: string | null;
  created_at: number;
}

const title = (a: Account) => a.name ?? `${a.app} account`;

export async function accountsPage(justConnected?: string): Promise<HTMLElement> {
  const [{ data: accounts }, { data: oauthApps }, known] = await Promise.all([
    api<{ data: Account[] }>("GET", "/users/me/accounts?limit=100"),
    api<{ data: { app: string; scopes: string[] }[] }>("GET", "/accounts/oauth_apps"),
    knownAppFields().catch(() => new Map<string, string[]>()),
  ]);
  const status = h("div", { role: "status" });
  const connected = accounts.find((a) => a.id === justConnected);
  if (connected) status.append(h("p", { class: "note" }, `Connected ${connected.app}: ${title(connected)}.`));

  return h(
    "div",
    {},
    h("h2", {}, "Connected accounts"),
    status,
    accounts.length
      ? h(
          "ul",
          { class: "accounts" },
          accounts.map((a) => accountItem(a, a.id === justConnected, status)),
        )
      : h("p", {}, "No connected accounts yet."),
    oauthSection(oauthApps, status),
    accountForm(known, (id) => go(`/accounts/${id}`, true)),
  );
}

function accountItem(account: Account, fresh: boolean, status: HTMLElement): HTMLElement {
  const heading = h("h3", {}, title(account));
  const rename = h("input", { name: "name", autocomplete: "off", value: account.name ?? "" });
  const renameForm = h(
    "form",
    {
      class: "rename",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          await api("PUT", `/accounts/${enc(account.id)}`, { name: rename.value.trim() || null });
          go("/accounts", true);
        } catch (error) {
          status.replaceChildren(errorBox(error));
        }
      },
    },
    labelled(`New name for ${title(account)}`, rename),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Save name"),
      h("button", { type: "button", onclick: () => renameForm.remove() }, "Cancel"),
    ),
  );
  const remove = async () => {
    if (!confirm(`Delete the connected account ${title(account)}?`)) return;
    try {
      await api("DELETE", `/accounts/${enc(account.id)}`);
      go("/accounts", true);
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  const item = h(
    "li",
    { class: fresh ? "account fresh" : "account", "data-account": account.id },
    heading,
    account.refresh_failure
      ? h(
          "p",
          { class: "error" },
          `Its token could not be refreshed: ${account.refresh_failure}. Connect it again, or save new credentials.`,
        )
      : null,
    h(
      "dl",
      {},
      h("dt", {}, "App"),
      h("dd", {}, account.app),
      h("dt", {}, "Fields"),
      h("dd", {}, account.fields.join(", ")),
      h("dt", {}, "Id"),
      h("dd", {}, h("code", {}, account.id)),
      h("dt", {}, "Created"),
      h("dd", {}, time(account.created_at)),
    ),
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          "aria-label": `Rename ${title(account)}`,
          // The form is in the page only while it is used (CSS display rules would override `hidden`).
          onclick: () => {
            item.append(renameForm);
            rename.focus();
          },
        },
        "Rename",
      ),
      h("button", { type: "button", class: "danger", "aria-label": `Delete ${title(account)}`, onclick: () => void remove() }, "Delete"),
    ),
  );
  return item;
}

function oauthSection(apps: { app: string; scopes: string[] }[], status: HTMLElement): HTMLElement {
  const section = h("section", { "aria-labelledby": "oauth-heading" }, h("h3", { id: "oauth-heading" }, "Connect with OAuth"));
  if (apps.length === 0) {
    section.append(h("p", {}, "No OAuth apps are configured. An operator adds them with POST /v1/admin/oauth_apps."));
    return section;
  }
  for (const app of apps) {
    const name = h("input", { name: "name", autocomplete: "off", placeholder: "optional" });
    section.append(
      h(
        "form",
        {
          class: "connect",
          onsubmit: async (event: Event) => {
            event.preventDefault();
            try {
              const query = name.value.trim() ? `?name=${enc(name.value.trim())}` : "";
              const { data } = await api("GET", `/accounts/oauth/${enc(app.app)}/start${query}`);
              // The provider's consent page; its callback leads back to this page.
              location.assign(data.url);
            } catch (error) {
              status.replaceChildren(errorBox(error));
            }
          },
        },
        labelled(`Name of the new ${app.app} account`, name),
        app.scopes.length ? h("p", { class: "hint" }, `Asks for: ${app.scopes.join(", ")}`) : null,
        h("button", { type: "submit" }, `Connect ${app.app}`),
      ),
    );
  }
  return section;
}
