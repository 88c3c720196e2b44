// The `dir` changes of one execution, between its run and the storing of its results: checked
// and staged before the results' transaction (a refusal is one more $errors event of it), made
// the source's files only once that transaction committed (so a run whose results were not
// stored leaves the files as they were), and dropped when it did not. No failure here throws:
// each becomes an $errors entry, so the execution is never retried because of its files.
import type { Ctx } from "../context.js";
import type { DirChanges, ExecutionFailure } from "../../runtime/code-runner.js";
import { SOURCE_FILES_ERROR } from "../../runner/protocol/dir-rules.js";
import { checkFileChanges } from "./source-file-changes.js";
import { removeSourceFiles, stageSourceFiles, type StagedFiles } from "./source-files.js";

export interface RunFiles {
  staged?: StagedFiles;
  /** Why the change set was refused whole: an $errors event of this execution. */
  refused?: Pick<ExecutionFailure, "name" | "message" | "stack">;
}

export async function stageRunFiles(
  ctx: Pick<Ctx, "config">,
  sourceId: string,
  before: Record<string, string>,
  changes: DirChanges,
): Promise<RunFiles> {
  const plan = checkFileChanges(before, changes, { maxFiles: ctx.config.sourceFilesMax, maxBytes: ctx.config.sourceFilesBytes });
  if (typeof plan === "string") return { refused: filesFailure(plan) };
  try {
    return { staged: await stageSourceFiles(ctx, sourceId, plan) };
  } catch (error) {
    return { refused: filesFailure(`the files could not be written (${(error as Error).message})`) };
  }
}

/**
 * Makes the staged files the source's, after its results were stored; undefined when done, or
 * the failure to record on $errors. A source deleted meanwhile keeps nothing.
 */
export async function commitRunFiles(ctx: Ctx, sourceId: string, staged: StagedFiles): Promise<RunFiles["refused"]> {
  try {
    await staged.commit();
  } catch (error) {
    await staged.discard().catch(() => undefined);
    ctx.logger.error({ err: error, sourceId }, "a source's file changes could not be applied");
    return filesFailure(`the files could not be written (${(error as Error).message})`);
  } finally {
    await removeIfDeleted(ctx, sourceId).catch((error: unknown) =>
      ctx.logger.error({ err: error, sourceId }, "a deleted source's files could not be removed"),
    );
  }
  return undefined;
}

async function removeIfDeleted(ctx: Ctx, sourceId: string): Promise<void> {
  if (!(await ctx.db.selectFrom("sources").select("id").where("id", "=", sourceId).executeTakeFirst()))
    await removeSourceFiles(ctx, sourceId);
}

function filesFailure(reason: string): Pick<ExecutionFailure, "name" | "message" | "stack"> {
  const message = `${reason}; none of this execution's file changes were kept`;
  return { name: SOURCE_FILES_ERROR, message, stack: `${SOURCE_FILES_ERROR}: ${message}` };
}
