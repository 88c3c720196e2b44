// Paid accounts bill monthly from the day of the month they were created (UTC).
export function billingPeriod(createdAtMs: number, nowMs: number): { startMs: number; endMs: number } {
  const created = new Date(createdAtMs);
  const anchorDay = created.getUTCDate();
  const now = new Date(nowMs);
  const at = (year: number, month: number) => {
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    return Date.UTC(year, month, Math.min(anchorDay, lastDay), created.getUTCHours(), created.getUTCMinutes(), created.getUTCSeconds());
  };
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  if (at(year, month) > nowMs) {
    month -= 1;
    if (month < 0) {
      month = 11;
      year -= 1;
    }
  }
  const startMs = at(year, month);
  const endMs = month === 11 ? at(year + 1, 0) : at(year, month + 1);
  return { startMs, endMs };
}

// Asked on every execution (usage, quotas): the day's bounds are remembered.
let day = { startMs: 0, endMs: 0, name: "" };

export function utcDay(ms: number): string {
  if (ms < day.startMs || ms >= day.endMs) {
    const startMs = ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
    day = { startMs, endMs: startMs + 86_400_000, name: new Date(startMs).toISOString().slice(0, 10) };
  }
  return day.name;
}
