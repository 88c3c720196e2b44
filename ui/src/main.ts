// The dashboard: a navigation bar and one page per route. Leaving a page aborts its live tails
// and refresh timers.
import { session } from "./api.js";
import { accountsPage } from "./pages/accounts.js";
import { errorBox, h, mount } from "./dom.js";
import { loginPage } from "./pages/login.js";
import { registryPage } from "./pages/registry.js";
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
    case "registry":
      return registryPage();
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
  ["registry", "Registry"],
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
  const current = path[0] ?? "sources";
  const nav = h(
    "nav",
    { "aria-label": "Main" },
    h("a", { href: "#main", class: "skip", onclick: skipToMain }, "Skip to content"),
    h("b", {}, "Sluice"),
    NAV.map(([route, label]) =>
      h(
        "a",
        { href: `#/${route}`, class: current === route ? "current" : undefined, "aria-current": current === route ? "page" : undefined },
        label,
      ),
    ),
    h("button", { class: "logout", onclick: () => (session.clear(), void render()) }, "Log out"),
  );
  const main = h("main", { id: "main", tabindex: -1 }, h("p", { role: "status" }, "loading…"));
  mount(root, nav, main);
  try {
    const content = await page(path, signal);
    if (!signal.aborted) {
      mount(main, content);
      announce(main);
    }
  } catch (error) {
    if (!signal.aborted) mount(main, errorBox(error));
    if (!session.key()) void render();
  }
}

/** Moves focus to the new page's heading, so that a screen reader says where the user is now. */
function announce(main: HTMLElement): void {
  const heading = main.querySelector("h2");
  document.title = `${heading?.textContent ?? "Dashboard"} · Sluice`;
  if (!heading || !document.activeElement || document.activeElement === document.body || !main.contains(document.activeElement)) {
    heading?.setAttribute("tabindex", "-1");
    heading?.focus({ preventScroll: true });
  }
}

function skipToMain(event: Event): void {
  event.preventDefault();
  document.getElementById("main")?.focus();
}

onRoute(() => void render());
void render();
