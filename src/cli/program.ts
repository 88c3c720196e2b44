// The `sluice` command as one commander program: the server-side commands (serve, users,
// registry, jobs) and the client commands that talk to a server over the REST API. Its help,
// generated from these definitions, is the only usage text. Exit codes: 0 done, 1 refused (by
// the server or the domain) or unreachable, 2 bad usage or a bad setting.
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config.js";
import { backupCommand } from "./commands/backup.js";
import { deleteCommand } from "./commands/delete.js";
import { deployCommand } from "./commands/deploy.js";
import { describeCommand } from "./commands/describe.js";
import { devCommand } from "./commands/dev.js";
import { doctorCommand } from "./commands/doctor.js";
import { eventCommands } from "./commands/events.js";
import { globalOptions } from "./commands/global-options.js";
import { initCommand } from "./commands/init.js";
import { jobCommands } from "./commands/jobs.js";
import { listCommand } from "./commands/list.js";
import { loginCommand, logoutCommand } from "./commands/login.js";
import { publishCommand } from "./commands/publish.js";
import { registryCommands } from "./commands/registry.js";
import { runsCommand } from "./commands/runs.js";
import { serveCommand } from "./commands/serve.js";
import { subscriptionCommands } from "./commands/subscribe.js";
import { updateCommand } from "./commands/update.js";
import { userCommands } from "./commands/users.js";
import { webhookCommands } from "./commands/webhooks.js";
import { CommandFailed, UsageError } from "./errors.js";

// Where the commands get their settings; commander's help cannot say it from the definitions.
const SETTINGS_HELP = `
serve, users, and registry or jobs without SLUICE_API_URL and SLUICE_ADMIN_TOKEN, use the database
the environment names (DATABASE_URL or SLUICE_DATA_DIR). The other commands talk to SLUICE_API_URL
with SLUICE_API_KEY, or to what \`sluice login\` stored.`;

/** `sluice users create`, as the user types it. */
const pathOf = (command: Command): string => (command.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name());

/** What follows a usage error: the command's usage line and where its help is. */
const pointerTo = (command: Command): string => `usage: ${pathOf(command)} ${command.usage()}\n(see ${pathOf(command)} --help)`;

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

export function sluiceProgram(): Command {
  const program = new Command("sluice")
    .description("Sluice: run the platform; deploy and watch sources, workflows and webhooks")
    .usage("<command> [options]")
    .addHelpText("after", SETTINGS_HELP)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text.replace(/^error: /, "sluice: ")) });
  for (const add of [serveCommand, userCommands, registryCommands, jobCommands, backupCommand, doctorCommand]) add(program);
  globalOptions(program);
  for (const add of [
    loginCommand,
    logoutCommand,
    initCommand,
    publishCommand,
    deployCommand,
    updateCommand,
    listCommand,
    describeCommand,
    eventCommands,
    runsCommand,
    deleteCommand,
    subscriptionCommands,
    webhookCommands,
    devCommand,
  ])
    add(program);
  // Set after the tree is built: each command points at its own usage, not the program's.
  for (const command of everyCommand(program)) command.showHelpAfterError(pointerTo(command));
  return program;
}

/** Runs `sluice` with these arguments; resolves with the exit code (serve keeps the process running after). */
export async function runSluice(argv: string[]): Promise<number> {
  const program = sluiceProgram();
  // The command a UsageError came from, so its pointer names that command's help; known before
  // the command's options are parsed, as their parsers may throw one too (--prop).
  let running: Command = program;
  for (const command of everyCommand(program)) {
    command.hook("preSubcommand", (_parent, sub) => {
      running = sub;
    });
  }
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return 2;
    }
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message. --help ends with a CommanderError too (exit code 0);
      // a command group without its subcommand (`sluice users`) prints its help to stderr: bad usage.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`sluice: ${error.message}\n${pointerTo(running)}\n`);
      return error.exitCode;
    }
    if (error instanceof CommandFailed || error instanceof ConfigError) {
      process.stderr.write(`sluice: ${error.message}\n`);
      return error instanceof CommandFailed ? error.exitCode : 2;
    }
    throw error;
  }
}
