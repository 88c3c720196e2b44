import type { Actor, Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import type { CodeRunner } from "../../runtime/code-runner.js";
import { fetchComponentCode } from "../../runtime/modules/fetch-code.js";
import type { ComponentsTable } from "../../store/schema.js";
import { codeHash, componentFromRow, type SavedComponent } from "./component.js";

export interface SaveComponentInput {
  code?: string;
  url?: string;
  /** component_files: code of the files relative imports name, by path relative to the code. */
  files?: Record<string, string>;
}

/**
 * Saves component code for the account. `code` wins when both are given (`url` is then kept
 * as metadata and as the base for relative imports); otherwise the code is fetched from `url`.
 * The runner evaluates the code to extract its metadata: bad code is a VALIDATION error.
 */
export async function saveComponent({
  ctx,
  runner,
  actor,
  input,
}: {
  ctx: Ctx;
  runner: CodeRunner;
  actor: Actor;
  input: SaveComponentInput;
}): Promise<SavedComponent> {
  const code = await componentCode(ctx, input);
  const files = componentFiles(input.files);
  const metadata = await runner.inspectComponent({ userId: actor.userId, code, codeUrl: input.url, files });
  // GET /components/registry lists the published registry: a component of that key could
  // never be read back by it.
  if (metadata.key === RESERVED_KEY)
    throw invalid(
      `the component key "${RESERVED_KEY}" is reserved (GET /components/${RESERVED_KEY} lists the published registry); give the component another key`,
    );
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
    files: files ? JSON.stringify(files) : null,
    metadata: JSON.stringify(metadata),
    package_name: null,
    package_version: null,
    package_path: null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto("components").values(row).execute();
  return componentFromRow(row);
}

const RESERVED_KEY = "registry";
const MAX_FILES = 100;

/** The files, or undefined when there are none; relative paths only. */
function componentFiles(files: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!files) return undefined;
  const entries = Object.entries(files);
  if (entries.length === 0) return undefined;
  if (entries.length > MAX_FILES) throw invalid(`component_files may hold at most ${MAX_FILES} files`);
  for (const [path] of entries) {
    if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0"))
      throw invalid(`component_files: "${path}" is not a relative path`);
  }
  return files;
}

async function componentCode(ctx: Ctx, input: SaveComponentInput): Promise<string> {
  if (typeof input.code === "string" && input.code.trim() !== "") return input.code;
  if (typeof input.url === "string" && input.url !== "")
    return fetchComponentCode(input.url, { allowPrivate: ctx.config.allowPrivateEgress });
  throw invalid("component_code or component_url is required");
}
