// `sluice registry add|list` without a server: the database the environment names, through
// main.ts's direct context (like `users create`), and, to add a package, a code runner of its
// own that inspects the package's sources the way the server would. Logs go to stderr; stdout
// is the command's output.
import { pino } from "pino";
import type { Config } from "../config.js";
import { addPackage, type AddedRegistryPackage } from "../domain/registry/add-registry-package.js";
import { listRegistryPackages } from "../domain/registry/manage-registry-packages.js";
import type { PackageRequest } from "../domain/registry/package-request.js";
import type { RegistryPackageView } from "../domain/registry/registry-package-view.js";
import { withDirectContext } from "../main.js";
import { createComponentRunner, runnerSettings } from "../runtime/component-runner.js";
import { chooseSandbox } from "../runtime/sandbox/choose-sandbox.js";

const stderrLogger = () => pino({ level: "warn" }, pino.destination(2));

export function addPackageDirectly(config: Config, request: PackageRequest): Promise<AddedRegistryPackage> {
  return withDirectContext(config, stderrLogger(), async (ctx) => {
    const sandbox = chooseSandbox(config.sandbox);
    if (sandbox.warning) ctx.logger.warn(sandbox.warning);
    const runner = createComponentRunner(runnerSettings(config, sandbox));
    try {
      await runner.ready;
      return await addPackage({ ctx, runner }, request);
    } finally {
      await runner.close();
    }
  });
}

export function listPackagesDirectly(config: Config): Promise<RegistryPackageView[]> {
  return withDirectContext(config, stderrLogger(), (ctx) => listRegistryPackages({ ctx }));
}
