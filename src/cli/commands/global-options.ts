// Options of `sluice` itself: --version (from the package) and
// --profile, which chooses the stored login before any command runs.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { chooseProfile } from "../client/settings.js";

/** The version in package.json: dist/src/cli/commands → the package's root is four folders up. */
function packageVersion(): string {
  const text = readFileSync(new URL("../../../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version?: string }).version ?? "unknown";
}

export function globalOptions(program: Command): void {
  program
    .version(packageVersion(), "-v, --version", "print the version of sluice")
    .option("--profile <name>", 'the stored login to use (default: SLUICE_PROFILE, else "default")')
    .hook("preSubcommand", (command) => chooseProfile(command.opts<{ profile?: string }>().profile));
}
