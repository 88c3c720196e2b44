// Carries out delivery jobs: loads the delivery, hands it to its listener (a webhook POST, or
// the handler registered for sources / workflows), records the attempt, and decides between
// done, retry (schedule with jitter, Retry-After) and failed (reported on `$errors`).
import type { Ctx } from "../domain/context.js";
import { toError } from "../lib/errors.js";
import { idPrefix } from "../lib/ids.js";
import { kindOfId, RESOURCE_KINDS, type ListenerKind } from "../lib/resource-kinds.js";
import type { Job, JobQueue } from "../queue/job-queue.js";
import { errorBackoffMs } from "../queue/db-job-queue.js";
import type { Kysely } from "kysely";
import type { Database, DeliveriesTable, WebhooksTable } from "../store/schema.js";
import { DELIVERY_JOB } from "../domain/deliveries/delivery-job.js";
import { deliveryLoader } from "./delivery-loader.js";
import { recordAttempt, setDeliveryState, successRecorder, type AttemptRecord } from "./delivery-records.js";
import { withDeliveryHops } from "../domain/deliveries/hops.js";
import type { ListenerHandlers } from "../domain/deliveries/listener-handlers.js";
import { disableGoneWebhook } from "../domain/webhooks/disable-gone-webhook.js";
import { reportExhaustedDelivery } from "./report-exhausted.js";
import { nextRetryDelayMs } from "./retry-policy.js";
import { createThreadedWebhookSender } from "./threaded-webhook-sender.js";
import type { WebhookOutcome, WebhookSender } from "./webhook-sender.js";

export interface DeliveryWorkerOptions {
  ctx: Ctx;
  queue: JobQueue;
  /** Who receives deliveries to sources and workflows; webhooks are sent here. */
  listenerHandlers?: ListenerHandlers;
  sender?: WebhookSender;
  /** Deliveries in flight per process. */
  concurrency?: number;
  /** Deliveries in flight per listener (webhook, source or workflow) in one worker. */
  perListenerConcurrency?: number;
}

/**
 * Per listener, so a slow or dead endpoint holds at most this many of a worker's delivery
 * slots: the queue does not claim a listener's deliveries while it has this many running.
 * One busy endpoint's throughput is this many over a request's round trip (Little's law);
 * at 32 the benchmark's single webhook was held to ~3,400/s with CPU to spare (ADR 0014),
 * and at 64 to ~5,600/s on SQLite and ~4,000/s on PostgreSQL, again with CPU idle while
 * the backlog drained (ADR 0018).
 */
export const PER_LISTENER_CONCURRENCY = 128;
/** Deliveries in flight per worker: sixteen listeners at their limit. */
const WORKER_CONCURRENCY = 16 * PER_LISTENER_CONCURRENCY;
const NO_HANDLER_MAX_WAIT_MS = 60_000;

type Result = void | { retryAt: number } | { completed: true };

export function registerDeliveryWorker(options: DeliveryWorkerOptions): { stop(): Promise<void> } {
  const { ctx, queue } = options;
  const listenerHandlers: ListenerHandlers = options.listenerHandlers ?? new Map();
  const sender = options.sender ?? createThreadedWebhookSender({ allowPrivateEgress: ctx.config.allowPrivateEgress });
  const successes = successRecorder(ctx.db, () => ctx.clock.now());
  const deliveries = deliveryLoader(ctx.db);
  const stopAnnouncements = ctx.committedDeliveries.listen((rows) => deliveries.committed(rows));

  async function run(job: Job): Promise<Result> {
    // The delivery and, for webhook listeners, the webhook of the same account; loaded
    // together with the other deliveries the same claim handed over.
    const row = await deliveries.load(job.payload.deliveryId, job.attempts === 1);
    if (!row || row.status !== "pending") return; // done before, or resent as a new job
    // The row is the delivery (its webhook's columns ride along unused): copying it without
    // them was a measurable part of each delivery's CPU.
    if (idPrefix(row.listener_id) !== WEBHOOK_PREFIX) return toListener(row, job);
    const webhook: WebhookSecrets | undefined =
      row.wh_id === null || row.wh_id === undefined
        ? undefined
        : {
            id: row.wh_id,
            url: row.wh_url!,
            active: Number(row.wh_active),
            signing_secret: row.wh_signing_secret!,
            previous_secret: row.wh_previous_secret ?? null,
            previous_secret_expires_at:
              row.wh_previous_secret_expires_at === null || row.wh_previous_secret_expires_at === undefined
                ? null
                : Number(row.wh_previous_secret_expires_at),
          };
    return toWebhook(row, webhook, job);
  }

  async function toWebhook(delivery: DeliveriesTable, webhook: WebhookSecrets | undefined, job: Job): Promise<Result> {
    const now = ctx.clock.now();
    if (!webhook || webhook.active !== 1) {
      const error = webhook ? "webhook is inactive" : "webhook was deleted";
      await recordAttempt(ctx.db, delivery.id, { attemptedAt: now, durationMs: 0, error });
      await setDeliveryState(ctx.db, delivery, {
        status: "failed",
        attempts: delivery.attempts,
        lastAttemptAt: now,
        nextAttemptAt: null,
        now,
      });
      ctx.metrics.delivery("webhook", "failed");
      return;
    }
    const outcome = await sender.send({
      url: webhook.url,
      body: delivery.event,
      webhookId: delivery.id,
      timestampSeconds: Math.floor(now / 1000),
      secrets: signingSecrets(webhook, now),
      emitterId: delivery.emitter_id,
      eventName: delivery.stream,
      eventId: delivery.event_id,
      signal: job.signal,
    });
    // The endpoint is done with this delivery: its place under the per-listener limit goes to
    // the next one while the outcome is written.
    job.releaseKey?.();
    if (job.signal?.aborted && outcome.status === undefined) return { retryAt: ctx.clock.now() }; // shutdown: not an attempt
    const attempt: AttemptRecord = {
      attemptedAt: now,
      statusCode: outcome.status,
      durationMs: outcome.durationMs,
      responseExcerpt: outcome.responseExcerpt,
      error: outcome.error,
    };
    // What the answer does to the webhook (410 Gone disables it) is the domain's to decide.
    const finalReason = await disableGoneWebhook({ ctx, input: { webhookId: webhook.id, status: outcome.status } });
    return settle(delivery, attempt, isSuccess(outcome), finalReason, outcome.retryAfterMs, job);
  }

  async function toListener(delivery: DeliveriesTable, job: Job): Promise<Result> {
    const kind = kindOfId(delivery.listener_id);
    const handler = kind === undefined || kind === "webhook" ? undefined : listenerHandlers.get(kind);
    // Nobody can run this kind of listener in this process yet: keep the delivery pending.
    if (!handler) return { retryAt: ctx.clock.now() + Math.min(NO_HANDLER_MAX_WAIT_MS, errorBackoffMs(job.attempts)) };
    const now = ctx.clock.now();
    const started = performance.now();
    let error: string | undefined;
    let completedInTransaction = false;
    const complete = async (tx: Kysely<Database>) => {
      await job.complete?.(tx);
      await recordAttempt(tx, delivery.id, { attemptedAt: now, durationMs: performance.now() - started });
      await setDeliveryState(tx, delivery, {
        status: "succeeded",
        attempts: delivery.attempts + 1,
        lastAttemptAt: now,
        nextAttemptAt: null,
        now: ctx.clock.now(),
      });
      completedInTransaction = true;
    };
    try {
      await withDeliveryHops(delivery.hops + 1, () =>
        handler({
          deliveryId: delivery.id,
          userId: delivery.user_id,
          listenerId: delivery.listener_id,
          emitterId: delivery.emitter_id,
          eventName: delivery.stream,
          eventId: delivery.event_id,
          event: JSON.parse(delivery.event),
          hops: delivery.hops,
          complete,
        }),
      );
      if (completedInTransaction)
        return void ctx.metrics.delivery(listenerKind(delivery), "succeeded", ctx.clock.now() - Number(delivery.created_at));
    } catch (thrown) {
      error = toError(thrown).message || "listener handler failed";
    }
    return settle(
      delivery,
      { attemptedAt: now, durationMs: performance.now() - started, error },
      error === undefined,
      undefined,
      undefined,
    );
  }

  /** Records the attempt and moves the delivery to succeeded, failed, or its next retry. */
  async function settle(
    delivery: DeliveriesTable,
    attempt: AttemptRecord,
    ok: boolean,
    finalReason: string | undefined,
    retryAfterMs: number | undefined,
    job?: Job,
  ): Promise<Result> {
    const now = ctx.clock.now();
    const attempts = delivery.attempts + 1;
    if (ok) {
      // The job goes with the success records (one commit), so the queue need not remove it.
      await successes.add({ deliveryId: delivery.id, attempt, job: job?.lease });
      ctx.metrics.delivery(listenerKind(delivery), "succeeded", ctx.clock.now() - Number(delivery.created_at));
      return job?.lease ? { completed: true } : undefined;
    }
    await recordAttempt(ctx.db, delivery.id, attempt);
    const delay = finalReason ? undefined : nextRetryDelayMs(ctx.config.webhookRetryScheduleSeconds, attempts, retryAfterMs);
    if (delay === undefined) {
      await setDeliveryState(ctx.db, delivery, {
        status: "failed",
        attempts,
        lastAttemptAt: attempt.attemptedAt,
        nextAttemptAt: null,
        now,
      });
      ctx.metrics.delivery(listenerKind(delivery), "failed");
      const reason = finalReason ?? `no success after ${attempts} attempt${attempts === 1 ? "" : "s"} (last: ${describe(attempt)})`;
      await reportExhaustedDelivery(ctx, delivery, { attempts, lastStatus: attempt.statusCode, lastError: attempt.error, reason }).catch(
        (err) => ctx.logger.error({ err, deliveryId: delivery.id }, "could not report a failed delivery"),
      );
      return;
    }
    const retryAt = now + delay;
    await setDeliveryState(ctx.db, delivery, {
      status: "pending",
      attempts,
      lastAttemptAt: attempt.attemptedAt,
      nextAttemptAt: retryAt,
      now,
    });
    ctx.metrics.delivery(listenerKind(delivery), "retried");
    return { retryAt };
  }

  queue.handle(DELIVERY_JOB, run, {
    // A delivery's own schedule decides when it has failed for good (settle): its attempts come
    // on top of the queue's maximum, which then bounds only what the schedule does not see (a
    // handler that throws, a worker that dies, a listener kind nobody handles).
    maxAttempts: ctx.config.webhookRetryScheduleSeconds.length + 1 + ctx.config.jobMaxAttempts,
    concurrency: options.concurrency ?? WORKER_CONCURRENCY,
    perKeyConcurrency: options.perListenerConcurrency ?? PER_LISTENER_CONCURRENCY,
    onClaimed: (payload: { deliveryId: string }) => deliveries.prefetch(payload.deliveryId),
  });
  return {
    async stop() {
      stopAnnouncements();
      sender.close();
    },
  };
}

const WEBHOOK_PREFIX = RESOURCE_KINDS.webhook.prefix;
// Subscriptions name only known kinds (domain/ownership.ts); anything else is counted with webhooks.
const listenerKind = (delivery: DeliveriesTable): ListenerKind => kindOfId(delivery.listener_id) ?? "webhook";

function isSuccess(outcome: WebhookOutcome): boolean {
  return outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
}

function describe(attempt: AttemptRecord): string {
  return attempt.error ?? `HTTP ${attempt.statusCode}`;
}

/** The current secret, and during a rotation the previous one for its 24 hours. */
type WebhookSecrets = Pick<WebhooksTable, "id" | "url" | "active" | "signing_secret" | "previous_secret" | "previous_secret_expires_at">;

export function signingSecrets(webhook: WebhookSecrets, now: number): string[] {
  const previousValid = webhook.previous_secret && webhook.previous_secret_expires_at !== null && webhook.previous_secret_expires_at > now;
  return previousValid ? [webhook.signing_secret, webhook.previous_secret!] : [webhook.signing_secret];
}
