// Which component a source create or update uses: component_id is preferred, then
// component_code (component_url then only metadata), then component_url.
import type { Actor, Ctx } from "../context.js";
import { findComponent } from "../components/find-component.js";
import { saveComponent } from "../components/save-component.js";
import type { SavedComponent } from "../components/component.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import type { CodeRunner } from "../../runtime/code-runner.js";

export interface ComponentChoice {
  component_id?: string;
  component_code?: string;
  component_url?: string;
  component_files?: Record<string, string>;
}

export async function componentForSource(ctx: Ctx, runner: CodeRunner, actor: Actor, input: ComponentChoice): Promise<SavedComponent> {
  const component = await chosenComponent(ctx, runner, actor, input);
  // Actions are published beside sources (registry packages' actions/); they run as workflow steps.
  if (component.metadata.type === "action")
    throw invalid(
      `component ${component.key ?? component.id} is an action: it runs as a workflow step ({"action": "<key>"}), not as a source`,
    );
  return component;
}

async function chosenComponent(ctx: Ctx, runner: CodeRunner, actor: Actor, input: ComponentChoice): Promise<SavedComponent> {
  if (input.component_id) {
    try {
      return await findComponent({ ctx, actor, idOrKey: input.component_id });
    } catch (error) {
      // An unknown component is bad input here, not a missing source.
      if (error instanceof ServiceError && error.code === "NOT_FOUND") throw invalid(`unknown component: ${input.component_id}`);
      throw error;
    }
  }
  if (input.component_code || input.component_url)
    return saveComponent({
      ctx,
      runner,
      actor,
      input: { code: input.component_code, url: input.component_url, files: input.component_files },
    });
  throw invalid("one of component_id, component_code or component_url is required");
}
