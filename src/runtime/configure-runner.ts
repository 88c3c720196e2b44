// The service side of configuring a component: asks an account's runner for the props its
// additionalProps() adds (runner/configure-props.ts) or for one prop's options, and turns what
// failed into a 4xx that names the prop. Implements that part of CodeRunner on the process pool.
import { invalid, ServiceError } from "../lib/errors.js";
import type { ConfigurableProp, ConfigureRequest, PropOptions, PropOptionsRequest } from "./code-runner.js";
import type { ModuleStore } from "./modules/module-store.js";
import type { ProcessPool, PoolOutcome } from "./process-pool.js";

export interface ConfigureRunnerDeps {
  pool: ProcessPool;
  modules: ModuleStore;
  timeoutMs: number;
}

async function runConfigure(deps: ConfigureRunnerDeps, input: ConfigureRequest, type: string, extra: object): Promise<PoolOutcome> {
  const entryPath = await deps.modules.prepare(input);
  return deps.pool.run(input.userId, { type, payload: { entryPath, props: input.props, ...extra } }, { timeoutMs: deps.timeoutMs });
}

const why = (outcome: PoolOutcome & { ok: false }) =>
  outcome.failure.kind === "error" ? `${outcome.failure.name}: ${outcome.failure.message}` : outcome.failure.message;

export async function reloadProps(deps: ConfigureRunnerDeps, input: ConfigureRequest): Promise<ConfigurableProp[]> {
  const outcome = await runConfigure(deps, input, "props.reload", {});
  if (outcome.ok) return outcome.result as ConfigurableProp[];
  throw invalid(`additionalProps() failed: ${why(outcome)}`);
}

export async function propOptions(deps: ConfigureRunnerDeps, input: PropOptionsRequest): Promise<PropOptions> {
  const { prop, prevContext, query, page } = input;
  const outcome = await runConfigure(deps, input, "props.options", { prop, prevContext, query, page });
  if (!outcome.ok) throw invalid(`the options of prop "${prop}" could not be loaded: ${why(outcome)}`);
  const result = outcome.result as PropOptions | { problem: "unknown-prop" | "no-options" };
  if ("problem" in result) {
    if (result.problem === "unknown-prop") throw new ServiceError("NOT_FOUND", `the component has no prop "${prop}"`);
    throw invalid(`prop "${prop}" has no options`);
  }
  return result;
}
