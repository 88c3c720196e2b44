#!/usr/bin/env node
// The `sluice` command: `serve` runs the platform; `users create` makes an account and
// `users rotate-key` replaces its keys, directly in the database, without the server running;
// every other command is a client of a server's REST API (client-program.ts).
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { ALL_ROLES, startSluice, type Role } from "../main.js";
import { runClient } from "./client-program.js";
import { createUsersCommand } from "./users-create.js";
import { rotateKeyCommand } from "./users-rotate-key.js";

const USAGE = `usage:
  sluice serve [--role api|worker|scheduler|all]
  sluice users create --username NAME --email ADDRESS [--plan free|paid]
  sluice users rotate-key (--username NAME | --id u_…)`;

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { role: { type: "string", default: "all" } } });
  const role = values.role ?? "all";
  const roles = role === "all" ? ALL_ROLES : role.split(",");
  if (roles.some((r) => !ALL_ROLES.includes(r as Role))) throw new ConfigError(`unknown role "${role}"`);
  const config = loadConfig();
  const sluice = await startSluice(config, {
    roles: roles as Role[],
    onBootstrapKey: (apiKey) => {
      console.log(`\nCreated the first account (username "admin"). Its API key, shown only this once:\n\n  ${apiKey}\n`);
    },
  });
  sluice.services.ctx.logger.info({ url: sluice.url, roles, storage: sluice.services.store.dialect }, "sluice started");
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    sluice.services.ctx.logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await sluice.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

async function main(argv: string[]): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile?.(".env");
  const [command, sub, ...rest] = argv;
  if (command === "serve") return serve([sub, ...rest].filter((a): a is string => a !== undefined));
  if (command === "users" && sub === "create") return createUsersCommand(rest, loadConfig());
  if (command === "users" && sub === "rotate-key") return rotateKeyCommand(rest, loadConfig());
  if (command === "users") {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  process.exitCode = await runClient(argv);
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof ConfigError || error?.name === "ServiceError" || error?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    console.error(`sluice: ${error.message}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
