// `$.send.http` requests a step asked for, made after its results are stored: through the
// egress guard like every outbound request of the service (no private, loopback or host
// addresses unless SLUICE_ALLOW_PRIVATE_EGRESS), without following redirects, with a time
// limit, the answer read and dropped. As on Pipedream they are sent once, not retried: a failure
// (or a worker that dies before sending) is logged, never the run's failure.
import { Agent, request } from "undici";
import { guardedLookup } from "../../../egress/egress-guard.js";
import { systemHostAddresses } from "../../../egress/host-addresses.js";
import type { HttpSendRequest } from "../../../runner/protocol/workflow-execution.js";
import type { Ctx } from "../../context.js";

const TIMEOUT_MS = 15_000;

export type HttpSender = (requests: HttpSendRequest[], where: { workflowId: string; runId: string }) => Promise<void>;

export function httpSender(ctx: Pick<Ctx, "config" | "logger" | "hostAddresses">): HttpSender {
  let agent: Agent | undefined;
  return async (requests, where) => {
    if (requests.length === 0) return;
    agent ??= new Agent({
      connect: {
        lookup: guardedLookup(ctx.config.allowPrivateEgress, ctx.hostAddresses ?? systemHostAddresses()) as never,
        timeout: TIMEOUT_MS,
      },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    for (const sent of requests) {
      try {
        const answer = await request(sent.url, {
          method: sent.method as "POST",
          headers: sent.headers,
          body: sent.body ?? undefined,
          dispatcher: agent,
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await answer.body.dump();
      } catch (error) {
        ctx.logger.warn({ err: error, ...where, url: new URL(sent.url).origin }, "a workflow's $.send.http request failed");
      }
    }
  };
}
