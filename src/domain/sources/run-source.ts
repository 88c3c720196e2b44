// One execution of a source: take its lock, run the entry point in a runner, then store in
// one transaction what came out — emits (deduped, in meta.ts order), $logs, $errors, the
// new $.service.db and dedupe state, the usage — and the deliveries those events cause.
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import { inGroupTransaction } from "../../store/group-commit.js";
import { isTransientConflict } from "../../store/transient-conflict.js";
import type { Database } from "../../store/schema.js";
import { appendEvents, retryOnEventIdClash, type NewEvent } from "../events/append-events.js";
import type { StoredEvent } from "../events/stored-event.js";
import { chargedEvenIfStoringFails } from "../usage/charge-execution.js";
import { recordUsage } from "../usage/record-usage.js";
import type {
  CodeRunner,
  EmitRecord,
  ExecuteRequest,
  ExecuteResult,
  ExecutionFailure,
  HttpResponseRecord,
} from "../../runtime/code-runner.js";
import { applyDedupe, type DedupeState } from "./dedupe.js";
import { readSourceFiles } from "./source-files.js";
import { SOURCE_FILES_ERROR } from "../../runner/protocol/dir-rules.js";
import { commitRunFiles, stageRunFiles, type RunFiles } from "./run-files.js";
import { endpointUrl, forgetSource, runnableSource, type RunnableSource } from "./runnable-source.js";
import { withFreshTokens } from "../accounts/app-props.js";
import { OAuthRefreshError } from "../accounts/oauth-refresh.js";
import { withSourceLock, type LockedState } from "./source-lock.js";

export interface SourceDeps {
  ctx: Ctx;
  runner: CodeRunner;
}

export interface RunRequest {
  sourceId: string;
  entry: ExecuteRequest["entry"];
  event?: unknown;
  onResponse?: (response: HttpResponseRecord) => void;
  /** Use this instead of looking the source up (lifecycle hooks of code being replaced, or a caller that just did). */
  source?: RunnableSource;
  /** Runs inside the transaction that stores the results (a queue job completing itself). */
  inTransaction?: (tx: Kysely<Database>) => Promise<void>;
}

/** The result of the execution, or undefined when the source does not exist (any more). */
export async function runSource({ ctx, runner }: SourceDeps, request: RunRequest): Promise<ExecuteResult | undefined> {
  const source = request.source ?? (await runnableSource(ctx, request.sourceId));
  if (!source) return undefined;
  // User code never runs with an access token known to be expired: the run fails instead,
  // saying why on $errors, as it would on Pipedream (docs/components.md, "OAuth tokens").
  let props = source.props;
  if (source.oauthProps.length > 0) {
    try {
      props = await withFreshTokens(ctx, source.props, source.oauthProps);
    } catch (error) {
      if (!(error instanceof OAuthRefreshError)) throw error;
      return refusedForAuth(ctx, source, request, error);
    }
    // The cached entry holds the old tokens: the next run loads the stored new ones.
    if (props !== source.props) forgetSource(ctx, source.id);
  }
  const timeoutMs = ctx.config.runTimeoutSeconds * 1000;
  // Only state ($.service.db, dir, data stores, dedupe) needs executions one at a time; a source
  // without any runs its executions side by side (the HTTP ingest path of most sources).
  const stateful = source.usesDb || source.usesDir || source.usesDataStore || source.metadata.dedupe !== null;
  const withState = <T>(fn: (locked: LockedState) => Promise<T>) =>
    stateful ? withSourceLock(ctx, source.id, timeoutMs + 30_000, fn) : fn({ state: {}, dedupe: {} });
  return withState(async (locked) => {
    let files: Record<string, string> | undefined;
    if (source.usesDir) {
      try {
        files = await readSourceFiles(ctx, source.id);
      } catch (error) {
        return notRun(ctx, source, request, {
          name: SOURCE_FILES_ERROR,
          message: `the source's files could not be read (${(error as Error).message}); the source did not run`,
        });
      }
    }
    const result = await runner.execute(
      {
        userId: source.userId,
        code: source.code,
        codeUrl: source.codeUrl,
        files: source.files,
        package: source.package,
        entry: request.entry,
        event: request.event,
        props,
        state: locked.state,
        ...(files ? { dir: files } : {}),
        context: { sourceId: source.id, endpointUrl: endpointUrl(ctx, source.endpointKey) ?? undefined },
        ...(source.extraProps.length > 0 ? { extraProps: source.extraProps } : {}),
        timeoutMs,
      },
      { onResponse: request.onResponse },
    );
    const deduped = applyDedupe(source.metadata.dedupe, orderByTs(result.emits), locked.dedupe as DedupeState);
    const events: NewEvent[] = [
      ...deduped.emits.map((emit) => ({ stream: emit.meta.name ?? "", event: emit.event, meta: emit.meta })),
      ...result.logs.map((log) => ({ stream: "$logs", event: { level: log.level, message: log.message } })),
    ];
    if (result.error) events.push(errorEvent(result.error, request.event));
    // The code ran: should storing what it did fail, it is still counted (charge-execution.ts).
    const charge = { userId: source.userId, computeMs: result.durationMs };
    const runFiles: RunFiles =
      files && result.dir ? await chargedEvenIfStoringFails(ctx, charge, () => stageRunFiles(ctx, source.id, files, result.dir!)) : {};
    if (runFiles.refused) events.push(errorEvent(runFiles.refused, request.event));
    // Executions finishing close together share one transaction (group commit); each still
    // returns only after its own results are committed. Results that cannot be stored are
    // dropped for one $errors event saying why (the job completes with it): retrying would run
    // the code again and fail the same way.
    const stored = await chargedEvenIfStoringFails(ctx, charge, () =>
      retryOnEventIdClash(() =>
        inGroupTransaction(ctx.db, async (tx): Promise<StoredEvent[] | undefined> => {
          await request.inTransaction?.(tx);
          const now = ctx.clock.now();
          await recordUsage(tx, source.userId, now, result.durationMs); // every execution counts, hooks too, and one of a source deleted meanwhile
          if (stateful) {
            const updated = await tx
              .updateTable("sources")
              .set({ state: JSON.stringify(result.state ?? locked.state), dedupe_state: JSON.stringify(deduped.state) })
              .where("id", "=", source.id)
              .executeTakeFirst();
            if (Number(updated.numUpdatedRows) === 0) return undefined; // deleted while it ran
          }
          return appendEvents(ctx, tx, { userId: source.userId, emitterId: source.id, nowMs: now, events, limits: ctx.eventLimits });
        }),
      ),
    ).catch(async (error: unknown) => {
      await runFiles.staged?.discard();
      // A conflict with another process that outlasted the retries: a job or delivery (which
      // completes in this transaction) runs again later rather than drop what the code emitted.
      if (isTransientConflict(error) && request.inTransaction) {
        ctx.logger.warn({ err: error, sourceId: source.id }, "an execution's results conflicted with another process; its job runs again");
        throw error;
      }
      const message = `the results of this execution could not be stored (${(error as Error)?.message ?? String(error)}); its ${deduped.emits.length} events and ${result.logs.length} log lines were not kept`;
      ctx.logger.error({ err: error, sourceId: source.id }, "an execution's results could not be stored");
      // When even this fails (the database is unreachable), the original error goes up.
      await recordSourceError(
        ctx,
        source,
        { name: "StoreError", message, stack: `StoreError: ${message}` },
        request.event,
        request.inTransaction,
      ).catch(() => {
        throw error;
      });
      return null;
    });
    if (stored === null) return withoutResults(result);
    for (const event of stored ?? []) ctx.metrics.eventEmitted("source", event.stream);
    if (stored && stored.length > 0) ctx.liveEvents.announce([source.id]);
    if (runFiles.staged) {
      // A source deleted while it ran (stored undefined) must not keep this execution's files.
      if (stored === undefined) await runFiles.staged.discard();
      else {
        const failed = await commitRunFiles(ctx, source.id, runFiles.staged);
        if (failed) await recordSourceError(ctx, source, failed, request.event);
      }
    }
    return result;
  });
}

/** A run that did not start because an OAuth refresh failed: recorded on $errors, as a failure. */
function refusedForAuth(ctx: Ctx, source: RunnableSource, request: RunRequest, error: OAuthRefreshError): Promise<ExecuteResult> {
  return notRun(ctx, source, request, { name: error.name, message: `${error.message}; the source did not run` });
}

/** A run that could not start: recorded on $errors, as a failure. */
async function notRun(
  ctx: Ctx,
  source: RunnableSource,
  request: RunRequest,
  reason: { name: string; message: string },
): Promise<ExecuteResult> {
  const failure: ExecutionFailure = { kind: "error", ...reason, stack: `${reason.name}: ${reason.message}` };
  await recordSourceError(ctx, source, failure, request.event, request.inTransaction);
  return { emits: [], logs: [], state: {}, error: failure, durationMs: 0 };
}

/**
 * An execution whose results were not stored: a custom response it gave still goes out (the
 * $errors event says what was lost); without one, the request gets a clear error, not a 200.
 */
function withoutResults(result: ExecuteResult): ExecuteResult {
  if (result.error || result.response) return result;
  const message = "the results of this execution could not be stored (see the source's $errors)";
  return { ...result, error: { kind: "error", name: "StoreError", message, stack: `StoreError: ${message}` } };
}

/** Emits of one execution in the order of their meta.ts; those without ts keep their place. */
function orderByTs(emits: EmitRecord[]): EmitRecord[] {
  let carry = -Infinity;
  const keyed = emits.map((emit, index) => {
    if (typeof emit.meta.ts === "number" && Number.isFinite(emit.meta.ts)) carry = emit.meta.ts;
    return { emit, ts: carry, index };
  });
  keyed.sort((a, b) => a.ts - b.ts || a.index - b.index);
  return keyed.map((k) => k.emit);
}

/** A source's $errors event: {error: {name, message, stack}, original_event}. */
export function errorEvent(failure: Pick<ExecutionFailure, "name" | "message" | "stack">, originalEvent: unknown): NewEvent {
  return {
    stream: "$errors",
    event: { error: { name: failure.name, message: failure.message, stack: failure.stack }, original_event: originalEvent ?? null },
  };
}

/**
 * Records an $errors event without running the source (e.g. a run skipped over quota), in a
 * group transaction like a run's results; `inTransaction` completes with it (a job that caused it).
 */
export async function recordSourceError(
  ctx: Ctx,
  source: { id: string; userId: string },
  failure: Pick<ExecutionFailure, "name" | "message" | "stack">,
  originalEvent: unknown,
  inTransaction?: RunRequest["inTransaction"],
): Promise<void> {
  const stored = await retryOnEventIdClash(() =>
    inGroupTransaction(ctx.db, async (tx) => {
      await inTransaction?.(tx);
      return appendEvents(ctx, tx, {
        userId: source.userId,
        emitterId: source.id,
        nowMs: ctx.clock.now(),
        events: [errorEvent(failure, originalEvent)],
        limits: ctx.eventLimits,
      });
    }),
  );
  if (stored.length > 0) ctx.liveEvents.announce([source.id]);
  ctx.metrics.eventEmitted("source", "$errors");
}
