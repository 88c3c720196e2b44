// Inbound e-mail for e-mail sources, the verbs the SMTP listener calls. A recipient is accepted
// when it is the address of an active source whose account may store another event. A message
// becomes one event per source among its recipients, on the source's default stream, stored
// with the deliveries it causes in one transaction before the message is acknowledged — the
// at-least-once rule of the public HTTP endpoints. The service emits it: e-mail runs no code
// (Pipedream's `email-new-email` has an empty run()), so it counts no invocation.
import type { Ctx } from "../context.js";
import { notFound, ServiceError } from "../../lib/errors.js";
import { appendEvents, retryOnEventIdClash } from "../events/append-events.js";
import type { Refusal } from "../events/event-limits.js";
import { assertStorageAvailable } from "../usage/storage-quota.js";
import { emailKeyOf } from "./email-address.js";
import { fitEvent, type EmailEvent } from "./email-event.js";

export interface EmailTarget {
  sourceId: string;
  userId: string;
}

export interface InboundMessage {
  /** The message as received (headers and body), or its beginning when `cut`. */
  raw: Buffer;
  /** Whether the message went on past `raw` (its event then says so). */
  cut?: boolean;
  /** MAIL FROM; "" for the null sender. */
  mailFrom: string;
  /** RCPT TO addresses, each accepted by acceptRecipient. */
  recipients: string[];
}

/** RCPT TO: the source an address names (NOT_FOUND: none, or inactive), if its account has room (LIMIT_EXCEEDED). */
export async function acceptRecipient({ ctx, input }: { ctx: Ctx; input: { address: string } }): Promise<EmailTarget> {
  const key = emailKeyOf(input.address, ctx.config.emailDomain);
  if (!key) throw notFound();
  const row = await ctx.db.selectFrom("sources").select(["id", "user_id", "active"]).where("email_key", "=", key).executeTakeFirst();
  if (!row || Number(row.active) !== 1) throw notFound();
  await assertStorageAvailable(ctx, row.user_id);
  return { sourceId: row.id, userId: row.user_id };
}

/** Parses a message as `parseEmail` does; the listener's runs in a worker thread. */
export type ParseEmail = (raw: Buffer, maxBytes: number) => Promise<EmailEvent>;

/** DATA: stores the message as an event of each source among the recipients; returns their ids. */
export async function receiveEmail({ ctx, input, parse }: { ctx: Ctx; input: InboundMessage; parse: ParseEmail }): Promise<string[]> {
  // The recipients again: a source may have been deleted or its account filled up meanwhile.
  const targets = new Map<string, EmailTarget & { addresses: string[] }>();
  for (const address of input.recipients) {
    const target = await acceptRecipient({ ctx, input: { address } }).catch((error: unknown) => {
      if (error instanceof ServiceError && error.code === "NOT_FOUND") return undefined;
      throw error;
    });
    if (!target) continue;
    const known = targets.get(target.sourceId);
    if (known) known.addresses.push(address);
    else targets.set(target.sourceId, { ...target, addresses: [address] });
  }
  if (targets.size === 0) throw notFound();

  const parsed = await parse(input.raw, ctx.config.maxEventBytes);
  const timestamp = new Date(ctx.clock.now()).toISOString();
  const events = [...targets.values()].map((target) => ({
    target,
    event: fitEvent(parsed, { source: input.mailFrom, destination: target.addresses, timestamp }, ctx.config.maxEventBytes, input.cut),
  }));
  await retryOnEventIdClash(() =>
    ctx.db.transaction().execute(async (tx) => {
      const nowMs = ctx.clock.now();
      for (const { target, event } of events) {
        // A refusal (the account filled up since its recipient was accepted) rolls everything
        // back: the sender is told to try again later rather than the mail being half stored.
        // appendEvents checks the limits and stores a refused event as its $errors entry.
        const [stored] = await appendEvents(ctx, tx, {
          userId: target.userId,
          emitterId: target.sourceId,
          nowMs,
          events: [{ stream: "", event, meta: metaOf(event) }],
          limits: ctx.eventLimits,
        });
        if (stored?.stream === "$errors") throw new ServiceError("LIMIT_EXCEEDED", (stored.event as Refusal["error"]).error.message);
      }
    }),
  );
  const sourceIds = [...targets.keys()];
  ctx.liveEvents.announce(sourceIds);
  for (let i = 0; i < sourceIds.length; i++) ctx.metrics.eventEmitted("source", "");
  return sourceIds;
}

const MAX_SUMMARY = 200;

/** The summary shows the subject; the emit id is the Message-ID, as a sender's retry keeps it. */
function metaOf(event: EmailEvent): { id?: string; summary?: string } {
  const subject = typeof event.subject === "string" ? event.subject : undefined;
  const messageId = typeof event.messageId === "string" ? event.messageId : undefined;
  return { ...(messageId ? { id: messageId } : {}), ...(subject ? { summary: subject.slice(0, MAX_SUMMARY) } : {}) };
}
