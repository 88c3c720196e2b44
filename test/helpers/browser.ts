// A headless browser for the dashboard tests: the system's Chromium driven by playwright-core
// (no browser download). Where there is none, the tests are skipped saying why, except in CI
// (CI=true), which installs Chromium and must run them: there they fail instead.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

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
