// The workflow routes under #/workflows: the list, a new workflow, one workflow, its builder,
// its runs and one run.
import { workflowBuilderPage } from "./workflow-builder.js";
import { runPage, runsPage } from "./workflow-runs.js";
import { workflowPage, workflowsPage } from "./workflows.js";

export function workflowRoute(path: string[], signal: AbortSignal): Promise<HTMLElement> {
  const [id, view, runId] = path;
  if (!id) return workflowsPage();
  if (id === "new") return workflowBuilderPage();
  if (view === "edit") return workflowBuilderPage(id);
  if (view === "runs") return runId ? runPage(id, runId) : runsPage(id);
  return workflowPage(id, signal);
}
