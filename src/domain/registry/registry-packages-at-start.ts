// SLUICE_REGISTRY_PACKAGES: packages every process records (when they are not yet) and
// installs at start, in the background. A package named without a version that is already
// recorded keeps its pinned version (adding it again through the admin API or the CLI moves
// it to what `latest` is then); one named with a version is added at that version unless it
// is recorded at it. A package that cannot be had is a warning: the service runs on.
import type { Ctx } from "../context.js";
import { EXACT_VERSION } from "../../runtime/modules/npm-cache.js";
import { addPackage, type RegistryDeps } from "./add-registry-package.js";
import { parsePackageRequest, type PackageRequest } from "./package-request.js";

export async function ensureRegistryPackages(deps: RegistryDeps, specs: string[]): Promise<void> {
  for (const spec of specs) {
    try {
      await ensurePackage(deps, parsePackageRequest(spec));
    } catch (error) {
      deps.ctx.logger.warn({ package: spec, err: error }, `registry package ${spec} from SLUICE_REGISTRY_PACKAGES could not be added: ${(error as Error).message}`);
    }
  }
}

async function ensurePackage(deps: RegistryDeps, request: PackageRequest): Promise<void> {
  const recorded = await recordedVersion(deps.ctx, request.name);
  const keep = recorded !== undefined && (request.range === undefined || (EXACT_VERSION.test(request.range) && request.range === recorded));
  if (keep) {
    // Recorded already: this host installs it now rather than on the first run.
    await deps.runner.npm.install(request.name, recorded);
    deps.ctx.logger.info({ package: `${request.name}@${recorded}` }, "registry package kept at its recorded version");
    return;
  }
  await addPackage(deps, request);
}

async function recordedVersion(ctx: Ctx, name: string): Promise<string | undefined> {
  const row = await ctx.db.selectFrom("registry_packages").select("version").where("name", "=", name).executeTakeFirst();
  return row?.version;
}
