// Numbers as people read them: bytes in KB/MB/GB (powers of 1024, as the storage quota is set
// in MB), durations in ms/s/min/h, counts with thousands separators.
export function bytes(n: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} ${value === 1 ? "byte" : "bytes"}`;
  return `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))} ${units[unit]}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(1))} s`;
  const minutes = seconds / 60;
  if (minutes < 60) return `${Number(minutes.toFixed(1))} min`;
  return `${Number((minutes / 60).toFixed(1))} h`;
}

export const count = (n: number) => n.toLocaleString("en-US");

export const percent = (used: number, quota: number) => (quota > 0 ? ` (${Math.min(999, Math.round((used / quota) * 100))} %)` : "");
