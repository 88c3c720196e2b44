// `sluice deploy <file | directory | URL | registry key>`: creates a source. A local file goes
// with the files its relative imports name (a directory: its index file); a URL is fetched by
// the server; anything else is taken as a component key (the account's, or the registry's).
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { readLocalComponent } from "../client/local-files.js";
import { printJson } from "../output.js";
import { client, collectProp, sourceLines, type JsonOption } from "./common.js";

const INDEX_FILES = ["index.mjs", "index.js", "index.cjs"];

/** A directory's component: its index file. */
function entryOf(target: string): string {
  if (!existsSync(target) || !statSync(target).isDirectory()) return target;
  const found = INDEX_FILES.map((name) => join(target, name)).find((path) => existsSync(path));
  if (!found) throw new UsageError(`${target} is a directory without ${INDEX_FILES.join(", ")}: name the component's file`);
  return found;
}

/** The component part of a source's create or update body. */
export function componentFields(given: string): Record<string, unknown> {
  if (/^https?:\/\//i.test(given)) return { component_url: given };
  const target = entryOf(given);
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
      const { data } = await withProgress(options.json === true, () => client().request("POST", "/sources", { json: body }));
      if (options.json) printJson(data);
      else process.stdout.write(sourceLines(data));
    });
}

/**
 * The server answers once the component's npm packages are installed, which can take a while
 * on first use: past a second, a line on stderr says what it is waiting for, and then a dot
 * every two seconds (nothing with --json, which scripts read).
 */
async function withProgress<T>(quiet: boolean, request: () => Promise<T>): Promise<T> {
  if (quiet) return request();
  let shown = false;
  const timer = setInterval(() => {
    process.stderr.write(shown ? "." : "deploying: the server is loading the component and installing its npm packages ");
    shown = true;
  }, 2000);
  const first = setTimeout(() => {
    process.stderr.write("deploying: the server is loading the component and installing its npm packages ");
    shown = true;
  }, 1000);
  try {
    return await request();
  } finally {
    clearInterval(timer);
    clearTimeout(first);
    if (shown) process.stderr.write(" done\n");
  }
}
