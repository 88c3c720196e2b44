// `sluice users create` makes an account and `sluice users rotate-key` replaces its keys,
// directly in the database the environment names: the server need not be running.
import { Option, type Command } from "commander";
import { loadConfig } from "../../config.js";
import type { Plan } from "../../domain/users/create-user.js";
import { ServiceError } from "../../lib/errors.js";
import { UsageError } from "../errors.js";
import { printJson } from "../output.js";

/**
 * No server stands between these commands and the domain: what the domain refuses (a taken
 * username, a bad address, an unknown account) is the operator's input, so it ends the
 * command as bad usage, exit 2.
 */
async function refusalIsUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ServiceError) throw new UsageError(error.message);
    throw error;
  }
}

export function userCommands(program: Command): void {
  const users = program.command("users").description("accounts, directly in the database (the server need not be running)");

  users
    .command("create")
    .description("make an account and print it as JSON, with its API key")
    .requiredOption("--username <name>", "the account's username")
    .requiredOption("--email <address>", "the account's e-mail address")
    .addOption(new Option("--plan <plan>", "the account's plan").choices(["free", "paid"]).default("free"))
    .action(async (options: { username: string; email: string; plan: Plan }) => {
      const user = await refusalIsUsage(async () =>
        (await import("../users-direct.js")).createUserDirectly(loadConfig(), {
          username: options.username,
          email: options.email,
          plan: options.plan,
        }),
      );
      printJson({ data: user });
    });

  users
    .command("rotate-key")
    .description("print a new API key for the account and revoke its other keys (running servers refuse them within 5 s)")
    .addOption(new Option("--username <name>", "the account, by username").conflicts("id"))
    .option("--id <id>", "the account, by id (u_…)")
    .action(async (options: { username?: string; id?: string }) => {
      if (options.username === undefined && options.id === undefined) throw new UsageError("give either --username or --id");
      const account = options.id !== undefined ? { userId: options.id } : { username: options.username! };
      const key = await refusalIsUsage(async () => (await import("../users-direct.js")).rotateKeyDirectly(loadConfig(), account));
      process.stdout.write(`${key}\n`);
    });
}
