// Usage and quotas of the account (GET /users/me): every field the API gives, as text.
import { api } from "../api.js";
import { h, time } from "../dom.js";

const LABELS: Record<string, string> = {
  daily_compute_time_used: "Compute time today (ms)",
  daily_compute_time_quota: "Compute time quota per day (ms)",
  daily_invocations_used: "Invocations today",
  daily_invocations_quota: "Invocations quota per day",
  billing_period_invocations: "Invocations this billing period",
  storage_used_bytes: "Storage used (bytes)",
  storage_quota_bytes: "Storage quota (bytes)",
};

export async function usagePage(): Promise<HTMLElement> {
  const { data } = await api<{ data: Record<string, unknown> }>("GET", "/users/me");
  const rows = Object.entries(data).map(([key, value]) => [
    h("dt", {}, LABELS[key] ?? key),
    h("dd", {}, key.endsWith("_ts") && typeof value === "number" ? time(value) : String(value)),
  ]);
  return h("div", {}, h("h2", {}, "Usage and quotas"), h("dl", { class: "usage" }, rows));
}
