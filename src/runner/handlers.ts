// The runner's message types and their handlers: components, and the workflow steps' own.
import { propOptions, reloadProps } from "./configure-props.js";
import { execute } from "./execute.js";
import { inspect } from "./inspect.js";
import type { Handler } from "./protocol/messages.js";
import { workflowHandlers } from "./workflow/handlers.js";

export const handlers: Record<string, Handler> = {
  inspect,
  execute,
  "props.reload": reloadProps,
  "props.options": propOptions,
  ...workflowHandlers,
};
