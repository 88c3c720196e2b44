// Lifecycle hooks (deploy, activate, deactivate) run in the runner like `run`, so what they
// store in $.service.db or emit is kept, and each counts as an invocation like any other
// execution. A hook the component lacks is skipped.
import type { ExecuteRequest } from "../../runtime/code-runner.js";
import { runSource, type SourceDeps } from "./run-source.js";
import type { RunnableSource } from "./runnable-source.js";

type Hook = Exclude<ExecuteRequest["entry"], "run" | "eventNames">;

export async function runHooks(deps: SourceDeps, source: RunnableSource, hooks: Hook[]): Promise<void> {
  for (const hook of hooks) {
    if (!source.metadata.hooks.includes(hook)) continue;
    await runSource(deps, { sourceId: source.id, entry: hook, source });
  }
}
