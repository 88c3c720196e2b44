// The registry of published components: the component files shipped in registry/ (at the
// package root) plus any in config.registryDir (SLUICE_REGISTRY_DIR), the way an operator
// publishes more. Loaded at start: each file is inspected in a runner and saved as a published
// component (user_id NULL) unless the same code is already published under that key; a new
// file takes its key over, an unchanged one only takes a key nothing else stands for (a
// registry package added since keeps a key it took over).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { Ctx } from "../context.js";
import { newId } from "../../lib/ids.js";
import type { CodeRunner } from "../../runtime/code-runner.js";
import { packageRoot } from "../../runtime/package-root.js";
import { codeHash } from "./component.js";
import { publishKey } from "./published-keys.js";

/** The runner account used to inspect registry code (never a real account id). */
export const REGISTRY_RUNNER_ID = "registry";
const EXTENSIONS = [".mjs", ".cjs", ".js"];

export function registryDirs(registryDir: string | undefined): string[] {
  return [join(packageRoot(), "registry"), ...(registryDir ? [registryDir] : [])];
}

export async function publishRegistry({
  ctx,
  runner,
  dirs,
}: {
  ctx: Ctx;
  runner: CodeRunner;
  dirs: string[];
}): Promise<{ published: string[] }> {
  const published: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (!EXTENSIONS.includes(extname(name)) || name.includes(".app.") || !statSync(path).isFile()) continue;
      try {
        published.push(await publishFile(ctx, runner, path));
      } catch (error) {
        ctx.logger.warn({ path, err: error }, "registry component skipped");
      }
    }
  }
  return { published };
}

async function publishFile(ctx: Ctx, runner: CodeRunner, path: string): Promise<string> {
  const code = readFileSync(path, "utf8");
  const hash = codeHash(code);
  const metadata = await runner.inspectComponent({ userId: REGISTRY_RUNNER_ID, code });
  const key = metadata.key ?? basename(path, extname(path));
  const now = ctx.clock.now();
  const existing = await ctx.db
    .selectFrom("components")
    .select("id")
    .where("user_id", "is", null)
    .where("key", "=", key)
    .where("code_hash", "=", hash)
    .where("package_name", "is", null)
    .orderBy("created_at", "desc")
    .executeTakeFirst();
  if (existing) {
    await publishKey(ctx.db, { key, componentId: existing.id, packageName: null, now }, { takeOver: false });
    return key;
  }
  const id = newId("sc");
  await ctx.db
    .insertInto("components")
    .values({
      id,
      user_id: null,
      key,
      name: metadata.name,
      version: metadata.version,
      code,
      code_hash: hash,
      component_url: null,
      metadata: JSON.stringify({ ...metadata, key }),
      created_at: now,
      updated_at: now,
    })
    .execute();
  await publishKey(ctx.db, { key, componentId: id, packageName: null, now });
  return key;
}
