// `sluice publish <file | URL>`: saves a component to the account (POST /v1/components) without
// running it, so sources and workflow steps can name it by its key.
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { printJson } from "../output.js";
import { client, type JsonOption } from "./common.js";
import { componentFields, sendingCode } from "./deploy.js";

export function publishCommand(program: Command): void {
  program
    .command("publish")
    .description("save a component (a local file or a URL) to the account, to be used by its key")
    .argument("<component>", "a file or an http(s) URL")
    .option("--json", "print the API's data as JSON")
    .action(async (target: string, options: JsonOption) => {
      const choice = componentFields(target);
      if ("component_id" in choice.fields) throw new UsageError(`${target} is neither a file nor an http(s) URL`);
      const { data } = await sendingCode(choice, () => client().request("POST", "/components", { json: choice.fields }));
      if (options.json) return printJson(data);
      process.stdout.write(
        [
          `id:      ${data.id}`,
          `key:     ${data.key ?? "(none: give the component a key to use it by key)"}`,
          `name:    ${data.name}`,
          `version: ${data.version}`,
        ].join("\n") + "\n",
      );
    });
}
