// Adds an npm package in the shape of `@pipedream/<app>` to the registry: installs it (the
// version given, or what `latest` is today, pinned to an exact version), inspects each of its
// sources in a runner, and publishes them as components (user_id NULL) whose code is loaded
// from the installed package on whichever host runs them. The package, its components and
// the keys they take are written in one transaction.
import type { Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import type { CodeRunner, ComponentMetadata, PackageEntry } from "../../runtime/code-runner.js";
import { EXACT_VERSION, type NpmCache } from "../../runtime/modules/npm-cache.js";
import type { Database } from "../../store/schema.js";
import type { Kysely } from "kysely";
import { codeHash } from "../components/component.js";
import { REGISTRY_RUNNER_ID } from "../components/publish-registry.js";
import { publishKey } from "../components/published-keys.js";
import type { PackageRequest } from "./package-request.js";
import { packageSourceFiles, readSourceCode } from "./package-sources.js";
import { registryPackageView, type RegistryPackageView } from "./registry-package-view.js";

export interface RegistryDeps {
  ctx: Ctx;
  /** Inspects the sources; its npm cache installs the package. */
  runner: CodeRunner & { npm: Pick<NpmCache, "install" | "installResolved"> };
}

export interface AddedRegistryPackage extends RegistryPackageView {
  /** Files under sources/ that were not published, and why. */
  skipped: Array<{ path: string; reason: string }>;
}

interface InspectedSource {
  path: string;
  code: string;
  metadata: ComponentMetadata & { key: string };
}

export async function addPackage(deps: RegistryDeps, request: PackageRequest): Promise<AddedRegistryPackage> {
  const { ctx } = deps;
  const { name } = request;
  const installed = request.range !== undefined && EXACT_VERSION.test(request.range) ? { version: request.range, dir: await deps.runner.npm.install(name, request.range) } : await deps.runner.npm.installResolved(name, request.range);
  const { version } = installed;
  // A package may hold only actions (helper packages do): they are recorded the same way.
  const paths = [...(await packageSourceFiles(installed.dir)), ...(await packageSourceFiles(installed.dir, "actions"))];
  if (paths.length === 0) throw invalid(`the npm package ${name}@${version} has no sources or actions: they are looked for in sources/<name>/<name>.mjs and actions/<name>/<name>.mjs (or .js, .cjs), as in @pipedream/<app> packages`);
  const { sources, skipped } = await inspectSources(deps, { name, version }, installed.dir, paths);
  if (sources.length === 0) throw invalid(`no source or action of the npm package ${name}@${version} could be published: ${skipped.map((s) => `${s.path}: ${s.reason}`).join("; ")}`);
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (tx) => {
    await tx
      .insertInto("registry_packages")
      .values({ name, version, added_at: now, updated_at: now })
      .onConflict((conflict) => conflict.column("name").doUpdateSet({ version, updated_at: now }))
      .execute();
    for (const source of sources) {
      const componentId = await packageComponent(tx, { name, version, path: source.path }, source, now);
      await publishKey(tx, { key: source.metadata.key, componentId, packageName: name, now });
    }
    // Keys an earlier version published that this one no longer has.
    await tx
      .deleteFrom("registry_components")
      .where("package_name", "=", name)
      .where("key", "not in", sources.map((source) => source.metadata.key))
      .execute();
    return tx.selectFrom("registry_packages").selectAll().where("name", "=", name).executeTakeFirstOrThrow();
  });
  ctx.logger.info({ package: `${name}@${version}`, keys: sources.map((s) => s.metadata.key), skipped: skipped.length }, "registry package added");
  return { ...registryPackageView(row, sources.map((source) => source.metadata.key)), skipped };
}

async function inspectSources(deps: RegistryDeps, pkg: { name: string; version: string }, dir: string, paths: string[]) {
  const sources: InspectedSource[] = [];
  const skipped: AddedRegistryPackage["skipped"] = [];
  const keys = new Map<string, string>();
  for (const path of paths) {
    let code: string;
    let metadata: ComponentMetadata;
    try {
      code = await readSourceCode(dir, path);
      metadata = await deps.runner.inspectComponent({ userId: REGISTRY_RUNNER_ID, code, package: { ...pkg, path } });
    } catch (error) {
      // Code that cannot be loaded is the package's fault: the other sources are still published.
      skipped.push({ path, reason: (error as Error).message });
      continue;
    }
    const reason =
      metadata.type !== expectedType(path) ? `not ${expectedType(path) === "source" ? "a source" : "an action"} (type "${metadata.type}")` : !metadata.key ? "the component has no key" : keys.has(metadata.key) ? `its key "${metadata.key}" is also the key of ${keys.get(metadata.key)}` : undefined;
    if (reason) {
      skipped.push({ path, reason });
      continue;
    }
    keys.set(metadata.key!, path);
    sources.push({ path, code, metadata: metadata as InspectedSource["metadata"] });
  }
  return { sources, skipped };
}

/** What a file's folder says it holds: actions/ holds actions, sources/ sources. */
const expectedType = (path: string) => (path.startsWith("actions/") ? "action" : "source");

/** The component of this file of this version: the one saved before, or a new one. */
async function packageComponent(tx: Kysely<Database>, entry: PackageEntry, source: InspectedSource, now: number): Promise<string> {
  const hash = codeHash(source.code);
  const existing = await tx
    .selectFrom("components")
    .select("id")
    .where("user_id", "is", null)
    .where("package_name", "=", entry.name)
    .where("package_version", "=", entry.version)
    .where("package_path", "=", entry.path)
    .where("code_hash", "=", hash)
    .executeTakeFirst();
  if (existing) return existing.id;
  const id = newId("sc");
  await tx
    .insertInto("components")
    .values({
      id,
      user_id: null,
      key: source.metadata.key,
      name: source.metadata.name,
      version: source.metadata.version,
      code: source.code,
      code_hash: hash,
      component_url: null,
      files: null,
      metadata: JSON.stringify(source.metadata),
      package_name: entry.name,
      package_version: entry.version,
      package_path: entry.path,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
