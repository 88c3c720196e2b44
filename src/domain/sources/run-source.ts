// One execution of a source: take its lock, run the entry point in a runner, then store in
// one transaction what came out — emits (deduped, in meta.ts order), $logs, $errors, the
// new $.service.db and dedupe state, the usage — and the deliveries those events cause.
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import { inGroupTransaction } from "../../store/group-commit.js";
import type { Database } from "../../store/schema.js";
import { appendEvents, retryOnEventIdClash, type NewEvent } from "../events/append-events.js";
import { chargedEvenIfStoringFails } from "../usage/charge-execution.js";
import { recordUsage } from "../usage/record-usage.js";
import type { CodeRunner, EmitRecord, ExecuteRequest, ExecuteResult, ExecutionFailure, HttpResponseRecord } from "../../runtime/code-runner.js";
import { applyDedupe, type DedupeState } from "./dedupe.js";
import { applySourceFileChanges, readSourceFiles, removeSourceFiles } from "./source-files.js";
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
  // Only state ($.service.db, dedupe) needs executions one at a time; a source without any
  // runs its executions side by side (the HTTP ingest path of most sources).
  const stateful = source.usesDb || source.usesDir || source.metadata.dedupe !== null;
  const withState = <T>(fn: (locked: LockedState) => Promise<T>) => (stateful ? withSourceLock(ctx, source.id, timeoutMs + 30_000, fn) : fn({ state: {}, dedupe: {} }));
  return withState(async (locked) => {
    const files = source.usesDir ? await readSourceFiles(ctx, source.id) : undefined;
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
    const refused = files && result.dir ? await chargedEvenIfStoringFails(ctx, charge, () => applySourceFileChanges(ctx, source.id, files, result.dir!)) : undefined;
    if (refused) events.push(errorEvent({ name: "SourceFilesError", message: refused, stack: `SourceFilesError: ${refused}` }, request.event));
    // Executions finishing close together share one transaction (group commit); each still
    // returns only after its own results are committed.
    const stored = await chargedEvenIfStoringFails(ctx, charge, () => retryOnEventIdClash(() => inGroupTransaction(ctx.db, async (tx) => {
      await request.inTransaction?.(tx);
      const now = ctx.clock.now();
      await recordUsage(tx, source.userId, now, result.durationMs); // every execution counts, hooks too, and one of a source deleted meanwhile
      if (stateful) {
        const updated = await tx
          .updateTable("sources")
          .set({ state: JSON.stringify(result.state ?? locked.state), dedupe_state: JSON.stringify(deduped.state) })
          .where("id", "=", source.id)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return []; // deleted while it ran
      }
      return appendEvents(ctx, tx, { userId: source.userId, emitterId: source.id, nowMs: now, events, limits: ctx.eventLimits });
    })));
    if (stored.length > 0) ctx.liveEvents.announce([source.id]);
    for (const event of stored) ctx.metrics.eventEmitted("source", event.stream);
    // A source deleted while it ran must not keep the files this execution wrote back.
    if (files && result.dir && !(await ctx.db.selectFrom("sources").select("id").where("id", "=", source.id).executeTakeFirst())) await removeSourceFiles(ctx, source.id);
    return result;
  });
}

/** A run that did not start because an OAuth refresh failed: recorded on $errors, as a failure. */
async function refusedForAuth(ctx: Ctx, source: RunnableSource, request: RunRequest, error: OAuthRefreshError): Promise<ExecuteResult> {
  const message = `${error.message}; the source did not run`;
  const failure: ExecutionFailure = { kind: "error", name: error.name, message, stack: `${error.name}: ${message}` };
  await recordSourceError(ctx, source, failure, request.event, request.inTransaction);
  return { emits: [], logs: [], state: {}, error: failure, durationMs: 0 };
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
  return { stream: "$errors", event: { error: { name: failure.name, message: failure.message, stack: failure.stack }, original_event: originalEvent ?? null } };
}

/**
 * Records an $errors event without running the source (e.g. a run skipped over quota), in a
 * group transaction like a run's results; `inTransaction` completes with it (a job that caused it).
 */
export async function recordSourceError(ctx: Ctx, source: { id: string; userId: string }, failure: Pick<ExecutionFailure, "name" | "message" | "stack">, originalEvent: unknown, inTransaction?: RunRequest["inTransaction"]): Promise<void> {
  const stored = await retryOnEventIdClash(() =>
    inGroupTransaction(ctx.db, async (tx) => {
      await inTransaction?.(tx);
      return appendEvents(ctx, tx, { userId: source.userId, emitterId: source.id, nowMs: ctx.clock.now(), events: [errorEvent(failure, originalEvent)], limits: ctx.eventLimits });
    }),
  );
  if (stored.length > 0) ctx.liveEvents.announce([source.id]);
  ctx.metrics.eventEmitted("source", "$errors");
}
