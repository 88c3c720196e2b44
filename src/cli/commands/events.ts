// `sluice events`, `sluice logs` and `sluice errors`: a stream of a source or workflow.
import { type Command, InvalidArgumentError } from "commander";
import { resolveRef } from "../client/resolve.js";
import { client } from "./common.js";
import { showEvents } from "./event-stream.js";

const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 100) throw new InvalidArgumentError("a whole number from 0 to 100");
  return n;
};

type Options = { n: number; stream?: string; follow?: boolean; json?: boolean };

export function eventCommands(program: Command): void {
  const add = (name: string, description: string, fixedStream: string | undefined) => {
    const command = program
      .command(name)
      .description(description)
      .argument("<emitter>", "a source or workflow: id or name")
      .option("-n <count>", "how many of the newest events to show (0-100)", count, 10)
      .option("-f, --follow", "then follow new events as they come (Ctrl-C to stop)")
      .option("--json", "print the API's data as JSON (one line per event when following)");
    if (fixedStream === undefined) command.option("--stream <name>", "a named stream, $logs or $errors (default: the default stream)");
    command.action(async (ref: string, options: Options) => {
      const api = client();
      const target = await resolveRef(api, ref, ["source", "workflow"]);
      await showEvents(api, target, {
        stream: fixedStream ?? options.stream ?? "",
        count: options.n,
        follow: options.follow ?? false,
        json: options.json ?? false,
      });
    });
  };
  add("events", "show the newest events of a source or workflow; -f follows the live tail", undefined);
  add("logs", "show the console output of a source or workflow ($logs); -f follows it", "$logs");
  add("errors", "show the errors of a source or workflow ($errors); -f follows them", "$errors");
}
