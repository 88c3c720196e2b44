// `sluice deploy <file | directory | URL | registry key>`: creates a source. A local file goes
// with the files its relative imports name (a directory: its index file); a URL is fetched by
// the server; anything else is taken as a component key (the account's, or the registry's).
// Code whose component key the account already runs as a source is not deployed a second time
// unless asked: --update updates that source, --name deploys another one beside it.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import type { ApiClient } from "../client/api-client.js";
import { CommandFailed, UsageError } from "../errors.js";
import { readLocalComponent, type LocalComponent } from "../client/local-files.js";
import { withSyntaxLocation } from "../client/syntax-location.js";
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

export interface ComponentChoice {
  /** The component part of a source's create or update body (or of POST /components). */
  fields: Record<string, unknown>;
  /** The local files sent, when the component is a local file. */
  local?: LocalComponent;
}

export function componentFields(given: string): ComponentChoice {
  if (/^https?:\/\//i.test(given)) return { fields: { component_url: given } };
  const target = entryOf(given);
  if (existsSync(target) || /[/\\]|\.(m|c)?[jt]s$/.test(target)) {
    const local = readLocalComponent(target);
    return {
      fields: { component_code: local.code, ...(Object.keys(local.files).length > 0 ? { component_files: local.files } : {}) },
      local,
    };
  }
  return { fields: { component_id: target } };
}

/** Sends a request whose refusal may be a syntax error of the local files: then it names file:line:column. */
export async function sendingCode<T>(choice: ComponentChoice, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw choice.local ? withSyntaxLocation(error, choice.local) : error;
  }
}

/** The account's sources that run a component with `key`. */
async function sourcesRunning(api: ApiClient, key: string): Promise<Array<{ id: string; name: string }>> {
  const sources = await api.all<{ id: string; name: string; component_id: string }>("/users/me/sources");
  const keys = new Map<string, string | null>();
  for (const id of new Set(sources.map((source) => source.component_id))) {
    keys.set(
      id,
      await api.get(`/components/${encodeURIComponent(id)}`).then(
        ({ data }) => data.key as string | null,
        () => null,
      ),
    );
  }
  return sources.filter((source) => keys.get(source.component_id) === key);
}

type DeployOptions = JsonOption & { name?: string; update?: boolean; prop: Record<string, unknown> };

async function deploy(target: string, options: DeployOptions): Promise<any> {
  const api = client();
  const choice = componentFields(target);
  if ("component_id" in choice.fields) {
    if (options.update)
      throw new UsageError("--update takes a file or URL; to update a source from a component key, run `sluice update <source> <key>`");
    return (
      await api.request("POST", "/sources", {
        json: { ...choice.fields, ...(options.name ? { name: options.name } : {}), configured_props: options.prop },
      })
    ).data;
  }
  // Saved first: the server reads the component's key, which says whether it runs already.
  const { data: component } = await sendingCode(choice, () => api.request("POST", "/components", { json: choice.fields }));
  const running = component.key && !options.name ? await sourcesRunning(api, component.key) : [];
  const list = running.map((source) => `  ${source.id}  ${source.name}`).join("\n");
  if (running.length > 0 && !options.update) {
    throw new CommandFailed(
      `the account already runs the component "${component.key}":\n${list}\nadd --update to update it, or --name <name> to deploy another source beside it`,
    );
  }
  if (options.update && running.length > 1)
    throw new CommandFailed(
      `the component "${component.key}" runs as ${running.length} sources; update one by id with \`sluice update <id> ${target}\`:\n${list}`,
    );
  if (options.update && running.length === 1) {
    const { id } = running[0]!;
    const { data: current } = await api.get(`/sources/${id}`);
    const body = {
      component_id: component.id,
      configured_props: { ...configuredProps(current.configured_props), ...options.prop },
      active: true,
    };
    return (await api.request("PUT", `/sources/${id}`, { json: body })).data;
  }
  return (
    await api.request("POST", "/sources", {
      json: { component_id: component.id, ...(options.name ? { name: options.name } : {}), configured_props: options.prop },
    })
  ).data;
}

/** The props as configured, from the source's view: an HTTP interface shows its endpoint and an e-mail prop its address, neither configured. */
export function configuredProps(shown: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(shown).filter(
      ([, value]) => !(value && typeof value === "object" && ("endpoint_url" in value || "email_address" in value)),
    ),
  );
}

export function deployCommand(program: Command): void {
  program
    .command("deploy")
    .description("deploy a component (a local file, a URL or a registry key) as a source")
    .argument("<component>", "a file, an http(s) URL, or a component key")
    .option("--name <name>", "the source's name (deploys a new source even when the component runs already)")
    .option("--update", "update the source that runs this component (by its key) instead of deploying another")
    .option("--prop <key=value>", "a configured prop (repeatable; JSON when it parses)", collectProp, {})
    .option("--json", "print the API's data as JSON")
    .action(async (target: string, options: DeployOptions) => {
      if (options.update && options.name) throw new UsageError("--update and --name exclude each other");
      const data = await withProgress(options.json === true, () => deploy(target, options));
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
