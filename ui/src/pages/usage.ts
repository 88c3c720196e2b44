// Usage and quotas of the account (GET /users/me), in human units: "3 of 100 runs today",
// "1.2 MB of 1 GB", a compute time in seconds or minutes. Fields this page does not know are
// listed as they come.
import { api } from "../api.js";
import { h, time } from "../dom.js";
import { bytes, count, duration, percent } from "../units.js";

type Me = Record<string, unknown>;

const num = (v: unknown) => (typeof v === "number" ? v : undefined);

/** The rows this page words itself: label, the text, and the fields it used. */
function known(me: Me): Array<[string, string, string[]]> {
  const rows: Array<[string, string, string[]]> = [];
  const [runs, runQuota] = [num(me.daily_invocations_used), num(me.daily_invocations_quota)];
  if (runs !== undefined)
    rows.push([
      "Runs today",
      runQuota !== undefined ? `${count(runs)} of ${count(runQuota)} runs today${percent(runs, runQuota)}` : `${count(runs)} runs today`,
      ["daily_invocations_used", "daily_invocations_quota"],
    ]);
  const [compute, computeQuota] = [num(me.daily_compute_time_used), num(me.daily_compute_time_quota)];
  if (compute !== undefined)
    rows.push([
      "Compute time today",
      computeQuota !== undefined ? `${duration(compute)} of ${duration(computeQuota)}${percent(compute, computeQuota)}` : duration(compute),
      ["daily_compute_time_used", "daily_compute_time_quota"],
    ]);
  const billed = num(me.billing_period_invocations);
  if (billed !== undefined) {
    const [start, end] = [num(me.billing_period_start_ts), num(me.billing_period_end_ts)];
    const period = start !== undefined && end !== undefined ? ` (${time(start).slice(0, 10)} to ${time(end).slice(0, 10)})` : "";
    rows.push([
      "Runs this billing period",
      `${count(billed)} runs${period}`,
      ["billing_period_invocations", "billing_period_start_ts", "billing_period_end_ts"],
    ]);
  }
  const [stored, storageQuota] = [num(me.storage_used_bytes), num(me.storage_quota_bytes)];
  if (stored !== undefined)
    rows.push([
      "Storage",
      storageQuota !== undefined ? `${bytes(stored)} of ${bytes(storageQuota)}${percent(stored, storageQuota)}` : bytes(stored),
      ["storage_used_bytes", "storage_quota_bytes"],
    ]);
  return rows;
}

const LABELS: Record<string, string> = { id: "Account id", username: "User name", email: "E-mail", api_key: "API key", plan: "Plan" };

export async function usagePage(): Promise<HTMLElement> {
  const { data } = await api<{ data: Me }>("GET", "/users/me");
  const rows = known(data);
  const used = new Set(rows.flatMap(([, , fields]) => fields));
  const rest = Object.entries(data).filter(([key]) => !used.has(key));
  return h(
    "div",
    {},
    h("h2", {}, "Usage and quotas"),
    h(
      "dl",
      { class: "usage" },
      rows.map(([label, text]) => [h("dt", {}, label), h("dd", {}, text)]),
      rest.map(([key, value]) => [
        h("dt", {}, LABELS[key] ?? key.replaceAll("_", " ")),
        h("dd", {}, key.endsWith("_ts") && typeof value === "number" ? time(value) : String(value)),
      ]),
    ),
  );
}
