// A workflow's trigger as GET /v1/workflows/{id} shows it: the HTTP endpoint, the timer's
// schedule, the source listened to, or the e-mail address, with the source that serves it.
import type { Config } from "../../../config.js";
import { emailAddress } from "../../inbound-email/email-address.js";
import { storedTrigger } from "./trigger-spec.js";

export interface TriggerView {
  type: "http" | "timer" | "source" | "email";
  endpoint_url?: string;
  cron?: string;
  intervalSeconds?: number;
  timezone?: string;
  source_id?: string;
  email_address?: string;
}

/** `stored` is the workflow row's trigger column; `endpointUrl` the workflow's endpoint. */
export function triggerView(config: Config, stored: string | null | undefined, endpointUrl: string): TriggerView {
  const trigger = storedTrigger(stored);
  switch (trigger.type) {
    case "http":
      return { type: "http", endpoint_url: endpointUrl };
    case "email":
      return { type: "email", source_id: trigger.source_id, email_address: emailAddress(config.emailDomain, trigger.email_key) ?? "" };
    default:
      return trigger;
  }
}
