// One request to a connected account's inbound URL, /a/<key> (unknown key: 404). Slack's URL
// verification is answered with its challenge and runs nothing. Otherwise each active source
// bound to the account whose event names take one of the request's event names gets a
// `source.run` job with the event (the inner event of Slack's envelope, provider-shapes.ts), written before the 200 {"status": "accepted"} (at least once, as for
// /e/); the sources run in the workers. Nothing bound, or nothing taking the name: still 200,
// the provider did its part. Over the account's quota, 429 as for every HTTP endpoint.
import type { Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import type { JobQueue } from "../../queue/job-queue.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import { ACCEPTED_RESPONSE } from "../endpoints/accepted-response.js";
import type { EndpointRequest } from "../endpoints/endpoint-kind.js";
import { acceptForLater, assertAccountMayStore } from "../endpoints/accept-for-later.js";
import { sourceRunJob } from "../sources/source-jobs.js";
import { apphookEvent, apphookEventNames, verificationChallenge } from "./apphook-event.js";
import { runEventOf } from "./provider-shapes.js";

/** Methods that carry events; others (GET, HEAD) only learn whether the URL exists. */
const EVENT_METHODS = new Set(["POST", "PUT", "PATCH"]);

const READY_RESPONSE: HttpResponseRecord = { status: 200, headers: {}, body: { kind: "json", value: { status: "ok" } } };

export async function receiveApphookRequest(deps: { ctx: Ctx; queue: JobQueue }, request: EndpointRequest): Promise<HttpResponseRecord> {
  const { ctx } = deps;
  const account = await ctx.db
    .selectFrom("connected_accounts")
    .select(["id", "user_id"])
    .where("inbound_key", "=", request.key)
    .executeTakeFirst();
  if (!account) throw notFound();
  if (!EVENT_METHODS.has(request.method)) return READY_RESPONSE;
  const event = apphookEvent(request.body);
  const challenge = verificationChallenge(event);
  if (challenge) return { status: 200, headers: {}, body: { kind: "json", value: challenge } };
  const sourceIds = await sourcesTaking(ctx, account, apphookEventNames(request, event));
  if (sourceIds.length === 0) return ACCEPTED_RESPONSE;
  await assertAccountMayStore(ctx, account.user_id);
  return acceptForLater(
    deps,
    sourceIds.map((sourceId) => sourceRunJob(account.user_id, sourceId, runEventOf(event))),
  );
}

/** Active sources bound to the account that take events of one of these names (every event when their list is empty). */
async function sourcesTaking(ctx: Ctx, account: { id: string; user_id: string }, names: string[]): Promise<string[]> {
  const bindings = await ctx.db
    .selectFrom("apphook_bindings")
    .innerJoin("sources", "sources.id", "apphook_bindings.source_id")
    .select(["apphook_bindings.source_id", "apphook_bindings.event_names"])
    .where("apphook_bindings.account_id", "=", account.id)
    // Bindings are only ever made to the source owner's accounts; checked again all the same.
    .where("sources.user_id", "=", account.user_id)
    .where("sources.active", "=", 1)
    .orderBy("apphook_bindings.source_id")
    .execute();
  const taking = new Set<string>();
  for (const binding of bindings) if (takes(binding.event_names, names)) taking.add(binding.source_id);
  return [...taking];
}

function takes(eventNames: string | null, given: string[]): boolean {
  // Not chosen yet, or eventNames() failed: nothing until the source is saved again.
  if (eventNames === null) return false;
  const names = JSON.parse(eventNames) as string[];
  return names.length === 0 || given.some((name) => names.includes(name));
}
