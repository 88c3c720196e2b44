// A webhook request for the sender tests: `url` plus fixed headers' values, any of them overridable.
import type { WebhookRequest } from "../../src/delivery-worker/webhook-sender.js";

export function webhookRequest(url: string, extra: Partial<WebhookRequest> = {}): WebhookRequest {
  return {
    url,
    body: '{"n":1}',
    webhookId: "del_test",
    timestampSeconds: 1,
    secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    emitterId: "dc_test",
    eventName: "",
    eventId: "1-0",
    ...extra,
  };
}
