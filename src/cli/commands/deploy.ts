// `sluice deploy <file | URL | registry key>`: creates a source. A local file goes with the
// files its relative imports name; a URL is fetched by the server; anything else is taken as
// a component key (the account's, or the registry's).
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { readLocalComponent } from "../client/local-files.js";
import { printJson } from "../output.js";
import { client, collectProp, sourceLines, type JsonOption } from "./common.js";

/** The component part of a source's create or update body. */
export function componentFields(target: string): Record<string, unknown> {
  if (/^https?:\/\//i.test(target)) return { component_url: target };
  if (existsSync(target) || /[/\\]|\.(m|c)?[jt]s$/.test(target)) {
    const local = readLocalComponent(target);
    return { component_code: local.code, ...(Object.keys(local.files).length > 0 ? { component_files: local.files } : {}) };
  }
  return { component_id: target };
}

export function deployCommand(program: Command): void {
  program
    .command("deploy")
    .description("deploy a component (a local file, a URL or a registry key) as a source")
    .argument("<component>", "a file, an http(s) URL, or a component key")
    .option("--name <name>", "the source's name")
    .option("--prop <key=value>", "a configured prop (repeatable; JSON when it parses)", collectProp, {})
    .option("--json", "print the API's data as JSON")
    .action(async (target: string, options: JsonOption & { name?: string; prop: Record<string, unknown> }) => {
      const body = { ...componentFields(target), ...(options.name ? { name: options.name } : {}), configured_props: options.prop };
      const { data } = await client().request("POST", "/sources", { json: body });
      if (options.json) printJson(data);
      else process.stdout.write(sourceLines(data));
    });
}
