// What a run hands the runner for each stored step: the module (an action's from its component:
// code, registry package, URL or files) and the prop values, with each app prop's
// {authProvisionId} replaced by {$auth: credentials}, OAuth tokens refreshed first when due
// (accounts/oauth-refresh.ts), as for sources. Credentials are read per step run, never stored in steps or runs.
import type { Ctx } from "../context.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import type { ExecutionFailure } from "../../runtime/code-runner.js";
import type { RunnableStep, WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";
import { withAppAuth, withFreshTokens } from "../accounts/app-props.js";
import { OAuthRefreshError } from "../accounts/oauth-refresh.js";
import { storedActionComponent } from "./step-action.js";

export type ResolvedStep = { step: RunnableStep } | { failure: ExecutionFailure };

/** One stored step as its runner request needs it, resolved just before it runs (so OAuth tokens are fresh for it). */
export async function runnableStep(ctx: Ctx, userId: string, step: WorkflowStepCode): Promise<ResolvedStep> {
  let module: Omit<RunnableStep, "id" | "name" | "props"> = { code: step.code ?? "" };
  if (step.type === "action") {
    const component = step.componentRef ? await storedActionComponent(ctx, userId, step.componentRef) : undefined;
    if (!component) return { failure: failure("ImportError", `the action of step "${step.name}" no longer exists`) };
    module = {
      code: component.code,
      ...(component.componentUrl ? { codeUrl: component.componentUrl } : {}),
      ...(component.files ? { files: component.files } : {}),
      ...(component.package ? { package: component.package } : {}),
    };
  }
  try {
    const props = await propsForRun(ctx, userId, step.props ?? {});
    const extra = step.extraProps?.length ? { extraProps: step.extraProps } : {};
    return { step: { id: step.id, name: step.name, ...module, ...(Object.keys(props).length > 0 ? { props } : {}), ...extra } };
  } catch (error) {
    if (!(error instanceof OAuthRefreshError)) throw error;
    return { failure: failure("OAuthRefreshError", `step "${step.name}": ${error.message}`) };
  }
}

const failure = (name: string, message: string): ExecutionFailure => ({ kind: "error", name, message, stack: `${name}: ${message}` });

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
