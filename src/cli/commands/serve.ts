// `sluice serve`: runs the platform in this process with the roles asked for, until SIGTERM or
// SIGINT stops it gracefully.
import type { Command } from "commander";
import { ALL_ROLES, loadConfig, type Role } from "../../config.js";
import { UsageError } from "../errors.js";

function rolesOf(role: string): Role[] {
  const roles = role === "all" ? ALL_ROLES : role.split(",");
  if (roles.some((r) => !ALL_ROLES.includes(r as Role))) throw new UsageError(`unknown role "${role}"`);
  return roles as Role[];
}

async function serve(options: { role: string }): Promise<void> {
  const roles = rolesOf(options.role);
  const config = loadConfig();
  // Loaded here, not at the top: client commands load only the client.
  const { startSluice } = await import("../../main.js");
  const sluice = await startSluice(config, {
    roles,
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

export function serveCommand(program: Command): void {
  program
    .command("serve")
    .description("run Sluice (what `npm start` runs)")
    .option("--role <roles>", `what this process does: ${ALL_ROLES.join(", ")}, several of them comma-separated, or all`, "all")
    .action(serve);
}
