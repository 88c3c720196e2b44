// `sluice update <source> [file]`: new code, props or active flag for a source, keeping its id.
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { resolveRef } from "../client/resolve.js";
import { printJson } from "../output.js";
import { client, collectProp, sourceLines, type JsonOption } from "./common.js";
import { componentFields } from "./deploy.js";

export function updateCommand(program: Command): void {
  program
    .command("update")
    .description("update a source's code, props or active flag")
    .argument("<source>", "the source's id or name")
    .argument("[component]", "new code: a file, an http(s) URL, or a component key")
    .option("--prop <key=value>", "a configured prop (repeatable; JSON when it parses)", collectProp)
    .option("--active", "activate the source")
    .option("--inactive", "deactivate the source")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, target: string | undefined, options: JsonOption & { prop?: Record<string, unknown>; active?: boolean; inactive?: boolean }) => {
      if (options.active && options.inactive) throw new UsageError("--active and --inactive exclude each other");
      const api = client();
      const { id } = await resolveRef(api, ref, ["source"]);
      const { data: current } = await api.get(`/sources/${id}`);
      const body: Record<string, unknown> = target ? componentFields(target) : { component_id: current.component_id };
      // Props not given stay; an update leaves the source active unless told otherwise.
      if (options.prop) body.configured_props = { ...configuredProps(current.configured_props), ...options.prop };
      body.active = options.inactive ? false : options.active ? true : current.active;
      const { data } = await api.request("PUT", `/sources/${id}`, { json: body });
      if (options.json) printJson(data);
      else process.stdout.write(sourceLines(data));
    });
}

/** The props as configured, from the source's view: an HTTP interface shows its endpoint and an e-mail prop its address, neither configured. */
function configuredProps(shown: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(shown).filter(([, value]) => !(value && typeof value === "object" && ("endpoint_url" in value || "email_address" in value))));
}
