// A headless browser for the dashboard tests: the system's Chromium driven by playwright-core
// (no browser download). Where there is none, the tests are skipped saying why, except in CI
// (CI=true), which installs Chromium and must run them: there they fail instead.
import { existsSync } from "node:fs";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.SLUICE_CHROMIUM ?? "/usr/bin/chromium";

export const BROWSER_SKIP: string | undefined =
  process.env.CI || existsSync(CHROMIUM_PATH)
    ? undefined
    : `needs Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set SLUICE_CHROMIUM to its path)`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Collects what goes wrong on a page into `problems`: script errors, console errors (a CSP
 * violation is one) and, with `responses`, every answer of 400 or more. A working page has none.
 */
export function recordPageProblems(page: Page, problems: string[], options: { responses?: boolean } = {}): void {
  page.on("pageerror", (error) => problems.push(error.message));
  page.on(
    "console",
    (message) => message.type() === "error" && !message.text().startsWith("Failed to load resource") && problems.push(message.text()),
  );
  if (options.responses)
    page.on("response", (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`));
}

/** Logs in on the dashboard's login form the page shows, and waits for the first page (Sources). */
export async function logIn(page: Page, apiKey: string): Promise<void> {
  await page.getByLabel("API key").fill(apiKey);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Sources" }).waitFor();
}

/** Replaces the text of a code editor (CodeMirror) by keyboard, as a user would (insertText: no auto-closed brackets). */
export async function typeInEditor(page: Page, editor: Locator, code: string): Promise<void> {
  await editor.click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
}
