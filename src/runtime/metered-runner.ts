// The code runner with its executions counted: durations by kind and failures by kind of
// failure (lib/metrics.ts). A wrapper, so the runner itself knows nothing of metrics.
import type { Metrics } from "../lib/metrics.js";
import type { ComponentRunner } from "./component-runner.js";

export function meteredRunner(runner: ComponentRunner, metrics: Metrics): ComponentRunner {
  return {
    ...runner,
    async inspectComponent(input) {
      const started = performance.now();
      try {
        return await runner.inspectComponent(input);
      } finally {
        metrics.run("inspect", performance.now() - started, undefined);
      }
    },
    async execute(request, options) {
      const result = await runner.execute(request, options);
      metrics.run("source", result.durationMs, result.error?.kind);
      return result;
    },
    async executeWorkflowStep(request, options) {
      const result = await runner.executeWorkflowStep(request, options);
      metrics.run("workflow", result.durationMs, result.error?.kind);
      return result;
    },
  };
}
