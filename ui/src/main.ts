// The dashboard: a navigation bar and one page per route. Leaving a page aborts its live tails
// and refresh timers.
import { session } from "./api.js";
import { accountsPage } from "./pages/accounts.js";
import { errorBox, h, mount } from "./dom.js";
import { loginPage } from "./pages/login.js";
import { sourcePage } from "./pages/source.js";
import { sourcesPage } from "./pages/sources.js";
import { subscriptionsPage } from "./pages/subscriptions.js";
import { usagePage } from "./pages/usage.js";
import { webhookPage } from "./pages/webhook.js";
import { webhooksPage } from "./pages/webhooks.js";
import { workflowRoute } from "./pages/workflow-routes.js";
import { currentPath, go, onRoute } from "./router.js";

const root = document.getElementById("app")!;
let leave = new AbortController();

function page(path: string[], signal: AbortSignal): Promise<HTMLElement> {
  const [section, id] = path;
  switch (section) {
    case "sources":
      return id ? sourcePage(id, signal) : sourcesPage();
    case "workflows":
      return workflowRoute(path.slice(1), signal);
    case "webhooks":
      return id ? webhookPage(id, signal) : webhooksPage();
    case "subscriptions":
      return subscriptionsPage();
    case "usage":
      return usagePage();
    case "accounts":
      return accountsPage(id);
    default:
      return sourcesPage();
  }
}

const NAV: [string, string][] = [
  ["sources", "Sources"],
  ["workflows", "Workflows"],
  ["webhooks", "Webhooks"],
  ["subscriptions", "Subscriptions"],
  ["accounts", "Accounts"],
  ["usage", "Usage"],
];

async function render(): Promise<void> {
  leave.abort();
  leave = new AbortController();
  const signal = leave.signal;
  if (!session.key()) {
    mount(
      root,
      loginPage(() => (location.hash === "#/sources" ? void render() : go("/sources"))),
    );
    return;
  }
  const path = currentPath();
  const nav = h(
    "nav",
    {},
    h("b", {}, "Sluice"),
    NAV.map(([route, label]) => h("a", { href: `#/${route}`, class: path[0] === route ? "current" : undefined }, label)),
    h("button", { class: "logout", onclick: () => (session.clear(), void render()) }, "Log out"),
  );
  const main = h("main", {}, h("p", {}, "loading…"));
  mount(root, nav, main);
  try {
    const content = await page(path, signal);
    if (!signal.aborted) mount(main, content);
  } catch (error) {
    if (!signal.aborted) mount(main, errorBox(error));
    if (!session.key()) void render();
  }
}

onRoute(() => void render());
void render();
