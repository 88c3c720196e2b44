// The client commands of `sluice` (commander): they talk to a server over the REST API.
// Usage errors exit 2, a refusal or an unreachable server 1 (client/errors.ts).
import { Command, CommanderError } from "commander";
import { deleteCommand } from "./commands/delete.js";
import { deployCommand } from "./commands/deploy.js";
import { jobCommands } from "./commands/jobs.js";
import { describeCommand } from "./commands/describe.js";
import { devCommand } from "./commands/dev.js";
import { eventCommands } from "./commands/events.js";
import { listCommand } from "./commands/list.js";
import { loginCommand } from "./commands/login.js";
import { registryCommands } from "./commands/registry.js";
import { subscriptionCommands } from "./commands/subscribe.js";
import { updateCommand } from "./commands/update.js";
import { webhookCommands } from "./commands/webhooks.js";
import { CommandFailed, UsageError } from "./client/errors.js";

export const SERVER_USAGE = `
Server commands:
  serve [--role api|worker|scheduler|all]        run Sluice
  users create --username NAME --email ADDRESS [--plan free|paid]

The registry and jobs commands use the admin API when SLUICE_API_URL and SLUICE_ADMIN_TOKEN are set,
and otherwise the database the environment names, as \`users create\` does.

The client commands talk to SLUICE_API_URL with SLUICE_API_KEY, or to what \`sluice login\` stored.`;

export function clientProgram(): Command {
  const program = new Command("sluice")
    .description("Sluice: deploy and watch sources, workflows and webhooks")
    .usage("<command> [options]")
    .addHelpText("after", SERVER_USAGE)
    .showHelpAfterError("(see --help)")
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text.replace(/^error: /, "sluice: ")) });
  for (const add of [loginCommand, deployCommand, updateCommand, listCommand, describeCommand, eventCommands, deleteCommand, subscriptionCommands, webhookCommands, devCommand, registryCommands, jobCommands]) add(program);
  return program;
}

/** Runs the client commands; resolves with the exit code. */
export async function runClient(argv: string[]): Promise<number> {
  const program = clientProgram();
  try {
    if (argv.length === 0) {
      process.stderr.write(`usage: ${program.name()} ${program.usage()}\n`);
      process.stderr.write(program.helpInformation());
      return 2;
    }
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with a CommanderError too.
      if (error.exitCode === 0 || error.code === "commander.helpDisplayed" || error.code === "commander.help") return 0;
      if (error.code === "commander.unknownCommand") process.stderr.write("usage: sluice <command> [options]; see sluice --help\n");
      return 2;
    }
    if (error instanceof UsageError || error instanceof CommandFailed) {
      process.stderr.write(`sluice: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
