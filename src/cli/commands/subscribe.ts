// `sluice subscribe` / `sluice unsubscribe --from X --to Y [--stream S]`: routes an
// emitter's stream to a listener (a webhook, source or workflow), or stops it.
import type { Command } from "commander";
import { resolveRef } from "../client/resolve.js";
import { printJson } from "../output.js";
import { client, type JsonOption } from "./common.js";

type Options = JsonOption & { from: string; to: string; stream?: string };

export function subscriptionCommands(program: Command): void {
  for (const name of ["subscribe", "unsubscribe"] as const) {
    program
      .command(name)
      .description(name === "subscribe" ? "deliver an emitter's events to a listener" : "stop delivering an emitter's events to a listener")
      .requiredOption("--from <emitter>", "a source or workflow: id or name")
      .requiredOption("--to <listener>", "a webhook, source or workflow: id or name")
      .option("--stream <name>", "the emitter's stream (default: the default stream)")
      .option("--json", "print the API's data as JSON")
      .action(async (options: Options) => {
        const api = client();
        const emitter = await resolveRef(api, options.from, ["source", "workflow"]);
        const listener = await resolveRef(api, options.to, ["webhook", "source", "workflow"]);
        const query = { emitter_id: emitter.id, listener_id: listener.id, event_name: options.stream ?? "" };
        if (name === "subscribe") {
          const { data } = await api.request("POST", "/subscriptions", { query });
          if (options.json) printJson(data);
          else process.stdout.write(`subscribed ${listener.id} to ${emitter.id}${options.stream ? ` ${options.stream}` : ""}\n`);
        } else {
          await api.request("DELETE", "/subscriptions", { query });
          if (options.json) printJson(query);
          else process.stdout.write(`unsubscribed ${listener.id} from ${emitter.id}${options.stream ? ` ${options.stream}` : ""}\n`);
        }
      });
  }
}
