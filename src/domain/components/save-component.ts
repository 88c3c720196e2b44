import type { Actor, Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import type { CodeRunner } from "../../runtime/contract.js";
import { fetchComponentCode } from "../../runtime/modules/fetch-code.js";
import type { ComponentsTable } from "../../store/schema.js";
import { codeHash, componentFromRow, type SavedComponent } from "./component.js";

export interface SaveComponentInput {
  code?: string;
  url?: string;
}

/**
 * Saves component code for the account. `code` wins when both are given (`url` is then kept
 * as metadata and as the base for relative imports); otherwise the code is fetched from `url`.
 * The runner evaluates the code to extract its metadata: bad code is a VALIDATION error.
 */
export async function saveComponent({ ctx, runner, actor, input }: { ctx: Ctx; runner: CodeRunner; actor: Actor; input: SaveComponentInput }): Promise<SavedComponent> {
  const code = await componentCode(ctx, input);
  const metadata = await runner.inspectComponent({ userId: actor.userId, code, codeUrl: input.url });
  const now = ctx.clock.now();
  const row: ComponentsTable = {
    id: newId("sc"),
    user_id: actor.userId,
    key: metadata.key,
    name: metadata.name,
    version: metadata.version,
    code,
    code_hash: codeHash(code),
    component_url: input.url ?? null,
    metadata: JSON.stringify(metadata),
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto("components").values(row).execute();
  return componentFromRow(row);
}

async function componentCode(ctx: Ctx, input: SaveComponentInput): Promise<string> {
  if (typeof input.code === "string" && input.code.trim() !== "") return input.code;
  if (typeof input.url === "string" && input.url !== "") return fetchComponentCode(input.url, { allowPrivate: ctx.config.allowPrivateEgress });
  throw invalid("component_code or component_url is required");
}
