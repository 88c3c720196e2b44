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

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
