// `sluice update <source> [file]`: new code, props, name or active flag for a source, keeping
// its id (and so its URL).
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { resolveRef } from "../client/resolve.js";
import { printJson } from "../output.js";
import { client, collectProp, sourceLines, type JsonOption } from "./common.js";
import { componentFields, configuredProps, sendingCode } from "./deploy.js";

type UpdateOptions = JsonOption & {
  prop?: Record<string, unknown>;
  name?: string;
  activate?: boolean;
  deactivate?: boolean;
  active?: boolean;
  inactive?: boolean;
};

export function updateCommand(program: Command): void {
  program
    .command("update")
    .description("update a source's code, props, name or active flag")
    .argument("<source>", "the source's id or name")
    .argument("[component]", "new code: a file, an http(s) URL, or a component key")
    .option("--prop <key=value>", "a configured prop (repeatable; JSON when it parses)", collectProp)
    .option("--name <name>", "rename the source (refused when the account uses the name)")
    .option("--activate", "activate the source")
    .option("--deactivate", "deactivate the source")
    // The spellings from before --activate/--deactivate, kept so scripts go on working.
    .option("--active", "the same as --activate")
    .option("--inactive", "the same as --deactivate")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, target: string | undefined, options: UpdateOptions) => {
      const activate = options.activate || options.active;
      const deactivate = options.deactivate || options.inactive;
      if (activate && deactivate) throw new UsageError("--activate and --deactivate exclude each other");
      const api = client();
      const { id } = await resolveRef(api, ref, ["source"]);
      const { data: current } = await api.get(`/sources/${id}`);
      const choice = target ? componentFields(target) : { fields: { component_id: current.component_id } };
      const body: Record<string, unknown> = { ...choice.fields };
      // Props not given stay; an update leaves the source active unless told otherwise.
      if (options.prop) body.configured_props = { ...configuredProps(current.configured_props), ...options.prop };
      if (options.name !== undefined) body.name = options.name;
      body.active = deactivate ? false : activate ? true : current.active;
      const { data } = await sendingCode(choice, () => api.request("PUT", `/sources/${id}`, { json: body }));
      if (options.json) printJson(data);
      else process.stdout.write(sourceLines(data));
    });
}
