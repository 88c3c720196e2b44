// The recorded registry packages: listed for the admin API, and removed. Removing a package
// takes its keys out of the registry; its components stay, so the sources deployed from them
// keep running (their hosts still install the recorded version on demand).
import type { Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import { registryPackageView, type RegistryPackageView } from "./registry-package-view.js";

export async function listRegistryPackages({ ctx }: { ctx: Ctx }): Promise<RegistryPackageView[]> {
  const rows = await ctx.db.selectFrom("registry_packages").selectAll().orderBy("name").execute();
  const keys = await ctx.db.selectFrom("registry_components").select(["key", "package_name"]).where("package_name", "is not", null).execute();
  const byPackage = new Map<string, string[]>();
  for (const { key, package_name } of keys) byPackage.set(package_name!, [...(byPackage.get(package_name!) ?? []), key]);
  return rows.map((row) => registryPackageView(row, byPackage.get(row.name) ?? []));
}

export async function removeRegistryPackage({ ctx, name }: { ctx: Ctx; name: string }): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    const deleted = await tx.deleteFrom("registry_packages").where("name", "=", name).executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0) throw notFound();
    await tx.deleteFrom("registry_components").where("package_name", "=", name).execute();
  });
}
