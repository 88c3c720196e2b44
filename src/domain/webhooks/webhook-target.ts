// Where a webhook may point, checked when its URL is set (created or changed): a host that is,
// or resolves to, an address the egress guard refuses is a 400 naming the setting that allows
// it, so the user learns it at once instead of from failed deliveries. The sender checks again
// at every attempt (a name may be pointed elsewhere later), so this is the early answer, not
// the only guard.
import type { Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { EgressRefusedError, PRIVATE_EGRESS_SETTING } from "../../egress/egress-guard.js";
import { resolveTarget, systemLookup } from "../../egress/egress-target.js";
import { systemHostAddresses } from "../../egress/host-addresses.js";

/** `url` is a URL validateWebhookUrl accepted. */
export async function assertWebhookTargetAllowed(ctx: Ctx, url: string): Promise<void> {
  if (ctx.config.allowPrivateEgress) return;
  const host = new URL(url).hostname;
  try {
    await resolveTarget(host, {
      allowPrivate: false,
      lookup: ctx.lookup ?? systemLookup,
      hostAddresses: ctx.hostAddresses ?? systemHostAddresses(),
    });
  } catch (error) {
    if (!(error instanceof EgressRefusedError)) {
      // A name that does not resolve (yet) is not refused: DNS may change before the first
      // delivery, and each attempt reports its own failure.
      return;
    }
    const where =
      error.address !== undefined && error.address !== host.replace(/^\[|\]$/g, "")
        ? `${host} resolves to ${error.address}, `
        : `${host} is `;
    throw invalid(
      `url's host ${where}a loopback, private or otherwise non-public address, which webhooks may not reach; set ${PRIVATE_EGRESS_SETTING}=true to allow it`,
    );
  }
}
