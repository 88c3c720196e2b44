// `sluice registry add <package>[@version]` and `sluice registry list`: registry packages
// through the admin API when SLUICE_API_URL and SLUICE_ADMIN_TOKEN are set, otherwise directly
// in the database the environment names (DATABASE_URL or SLUICE_DATA_DIR), like `users create`.
import type { Command } from "commander";
import { loadConfig } from "../../config.js";
import type { AddedRegistryPackage } from "../../domain/registry/add-registry-package.js";
import { parsePackageRequest, type PackageRequest } from "../../domain/registry/package-request.js";
import type { RegistryPackageView } from "../../domain/registry/registry-package-view.js";
import { ServiceError } from "../../lib/errors.js";
import { ApiClient } from "../client/api-client.js";
import { CommandFailed, UsageError } from "../errors.js";
import { normalizeApiUrl } from "../client/settings.js";
import { printJson, printTable, time } from "../output.js";
import type { JsonOption } from "./common.js";

/** The admin API, when the environment names a server and its admin token. */
export function adminClient(): ApiClient | undefined {
  const url = process.env.SLUICE_API_URL;
  const token = process.env.SLUICE_ADMIN_TOKEN;
  return url && token ? new ApiClient({ apiUrl: normalizeApiUrl(url), apiKey: token }) : undefined;
}

/** What the domain refused, worded as the server would have. */
export async function direct<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ServiceError) throw new CommandFailed(error.message);
    throw error;
  }
}

function requestOf(spec: string): PackageRequest {
  try {
    return parsePackageRequest(spec);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function registryCommands(program: Command): void {
  const registry = program
    .command("registry")
    .description("registry packages: npm packages in the shape of @pipedream/<app> whose sources are published (admin)");

  registry
    .command("add")
    .description("install an npm package, pin its version and publish its sources")
    .argument("<package>", "e.g. @pipedream/slack or @pipedream/slack@0.9.4")
    .option("--json", "print the API's data as JSON")
    .action(async (spec: string, options: JsonOption) => {
      const request = requestOf(spec);
      const api = adminClient();
      const added: AddedRegistryPackage = api
        ? (
            await api.request("POST", "/admin/registry/packages", {
              json: { name: request.name, ...(request.range ? { version: request.range } : {}) },
            })
          ).data
        : await direct(async () => (await import("../registry-direct.js")).addPackageDirectly(loadConfig(), request));
      if (options.json) return printJson(added);
      process.stdout.write(`${added.name}@${added.version}\n${added.keys.map((key) => `  ${key}\n`).join("")}`);
      for (const skipped of added.skipped) process.stderr.write(`skipped ${skipped.path}: ${skipped.reason}\n`);
    });

  registry
    .command("list")
    .description("list the registry packages and the keys they publish")
    .option("--json", "print the API's data as JSON")
    .action(async (options: JsonOption) => {
      const api = adminClient();
      const packages: RegistryPackageView[] = api
        ? (await api.get("/admin/registry/packages")).data
        : await direct(async () => (await import("../registry-direct.js")).listPackagesDirectly(loadConfig()));
      if (options.json) return printJson(packages);
      printTable(
        ["PACKAGE", "VERSION", "UPDATED", "KEYS"],
        packages.map((p) => [p.name, p.version, time(p.updated_at), p.keys.join(",")]),
      );
    });
}
