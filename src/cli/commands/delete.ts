// `sluice delete <id-or-name>`: removes a source, workflow or webhook.
import type { Command } from "commander";
import { PATH_OF_KIND, resolveRef } from "../client/resolve.js";
import { printJson } from "../output.js";
import { client, type JsonOption } from "./common.js";

export function deleteCommand(program: Command): void {
  program
    .command("delete")
    .description("delete a source, workflow or webhook")
    .argument("<ref>", "an id or a name")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, options: JsonOption) => {
      const api = client();
      const { id, kind } = await resolveRef(api, ref, ["source", "workflow", "webhook"]);
      await api.request("DELETE", `${PATH_OF_KIND[kind]}/${id}`);
      if (options.json) printJson({ id, deleted: true });
      else process.stdout.write(`deleted ${kind} ${id}\n`);
    });
}
