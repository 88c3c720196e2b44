// What a run hands the runner for each stored step: the module (an action's from its component:
// code, registry package, URL or files) and the prop values, with each app prop's
// {authProvisionId} replaced by {$auth: credentials}, OAuth tokens refreshed first when due
// (accounts/oauth-refresh.ts), as for sources. Credentials are read per run, never stored in steps.
import type { Ctx } from "../context.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type {
  RunnableStep,
  WorkflowExecuteRequest,
  WorkflowExecuteResult,
  WorkflowStepCode,
} from "../../runner/protocol/workflow-execution.js";
import type { WorkflowRunner } from "./workflow-runner.js";
import { withAppAuth, withFreshTokens } from "../accounts/app-props.js";
import { OAuthRefreshError } from "../accounts/oauth-refresh.js";
import { storedActionComponent } from "./step-action.js";

export type RunnableSteps = { steps: RunnableStep[] } | { failure: { stepId: string; name: string; message: string } };

export async function runnableSteps(ctx: Ctx, userId: string, stored: WorkflowStepCode[]): Promise<RunnableSteps> {
  const steps: RunnableStep[] = [];
  for (const step of stored) {
    let module: Omit<RunnableStep, "id" | "name" | "props"> = { code: step.code ?? "" };
    if (step.type === "action") {
      const component = step.componentRef ? await storedActionComponent(ctx, userId, step.componentRef) : undefined;
      if (!component)
        return { failure: { stepId: step.id, name: "ImportError", message: `the action of step "${step.name}" no longer exists` } };
      module = {
        code: component.code,
        ...(component.componentUrl ? { codeUrl: component.componentUrl } : {}),
        ...(component.files ? { files: component.files } : {}),
        ...(component.package ? { package: component.package } : {}),
      };
    }
    try {
      const props = await propsForRun(ctx, userId, step.props ?? {});
      steps.push({ id: step.id, name: step.name, ...module, ...(Object.keys(props).length > 0 ? { props } : {}) });
    } catch (error) {
      if (!(error instanceof OAuthRefreshError)) throw error;
      return { failure: { stepId: step.id, name: "OAuthRefreshError", message: `step "${step.name}": ${error.message}` } };
    }
  }
  return { steps };
}

/** Stored props hold app props only as {authProvisionId} (step-props.ts), which is how they are found here. */
async function propsForRun(ctx: Ctx, userId: string, stored: Record<string, unknown>): Promise<Record<string, unknown>> {
  const apps = Object.entries(stored).filter(([, value]) => isAccountRef(value));
  if (apps.length === 0) return stored;
  const metadata = { configurable_props: apps.map(([name]) => ({ name, type: "app" })) } as ComponentMetadata;
  const { props, oauthProps } = await withAppAuth(ctx, userId, metadata, stored);
  return oauthProps.length > 0 ? withFreshTokens(ctx, props, oauthProps) : props;
}

function isAccountRef(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "authProvisionId" && typeof (value as { authProvisionId: unknown }).authProvisionId === "string";
}

/** Runs stored steps: resolved here, executed by the runner; a step that cannot be resolved fails the run at that step. */
export async function executeStoredSteps(
  ctx: Ctx,
  runner: WorkflowRunner,
  request: Omit<WorkflowExecuteRequest, "steps"> & { steps: WorkflowStepCode[] },
  options?: { onResponse?: (response: HttpResponseRecord) => void },
): Promise<WorkflowExecuteResult> {
  const resolved = await runnableSteps(ctx, request.userId, request.steps);
  if ("steps" in resolved) return runner.executeWorkflow({ ...request, steps: resolved.steps }, options);
  const { stepId, name, message } = resolved.failure;
  return {
    emits: [],
    logs: [],
    emails: [],
    stepResults: [],
    exited: false,
    failedStepId: stepId,
    error: { kind: "error", name, message, stack: `${name}: ${message}` },
    durationMs: 0,
  };
}
