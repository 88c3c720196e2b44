// `sluice describe <id-or-name>`: a source, workflow or webhook as the API shows it.
import type { Command } from "commander";
import { PATH_OF_KIND, resolveRef } from "../client/resolve.js";
import { printJson } from "../output.js";
import { client } from "./common.js";

export function describeCommand(program: Command): void {
  program
    .command("describe")
    .description("show a source, workflow or webhook")
    .argument("<ref>", "an id or a name")
    .option("--json", "print the API's data as JSON (the default here)")
    .action(async (ref: string) => {
      const api = client();
      const { id, kind } = await resolveRef(api, ref, ["source", "workflow", "webhook"]);
      printJson((await api.get(`${PATH_OF_KIND[kind]}/${id}`)).data);
    });
}
