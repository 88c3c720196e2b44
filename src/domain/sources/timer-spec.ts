// Timer props: where the schedule comes from (configured_props override, then the prop's
// default, then the legacy placement on the prop itself) and when a timer runs next. A cron
// schedule runs in UTC unless a `timezone` (IANA name) comes with it; the zone is kept in the
// cron text as the usual `CRON_TZ=<zone> ` prefix, so the stored schedule stays one column.
import { Cron } from "croner";
import { invalid } from "../../lib/errors.js";
import type { ConfigurableProp } from "../../runtime/code-runner.js";

export const DEFAULT_TIMER_SECONDS = 900;

export interface TimerSpec {
  intervalSeconds: number | null;
  cron: string | null;
}

function fromObject(value: unknown): TimerSpec | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  const cron = typeof v.cron === "string" && v.cron.trim() ? v.cron.trim() : null;
  const raw = v.intervalSeconds ?? v.interval_seconds;
  const interval = raw === undefined || raw === null ? null : Number(raw);
  if (cron === null && interval === null) return undefined;
  const timezone = typeof v.timezone === "string" && v.timezone.trim() ? v.timezone.trim() : null;
  return { intervalSeconds: cron ? null : interval, cron: cron ? zoned(cron, timezone) : null };
}

const TZ_PREFIX = "CRON_TZ=";

/** The cron text stored: UTC as the bare pattern, any other (checked) zone as a prefix. */
function zoned(cron: string, timezone: string | null): string {
  const split = splitCron(cron);
  const zone = timezone ?? split.timezone;
  if (zone === "UTC") return split.pattern;
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(zone) || !isKnownZone(zone))
    throw invalid(`unknown timezone "${zone}" (an IANA name such as Europe/Paris)`);
  return `${TZ_PREFIX}${zone} ${split.pattern}`;
}

function isKnownZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** A stored cron text as its pattern and zone (UTC without a `CRON_TZ=` prefix). */
export function splitCron(cron: string): { pattern: string; timezone: string } {
  if (!cron.startsWith(TZ_PREFIX)) return { pattern: cron, timezone: "UTC" };
  const space = cron.indexOf(" ");
  if (space < 0) return { pattern: "", timezone: cron.slice(TZ_PREFIX.length) };
  return { pattern: cron.slice(space + 1).trim(), timezone: cron.slice(TZ_PREFIX.length, space) };
}

/** The longest interval accepted: a year (also keeps next-run times far inside bigint). */
export const MAX_TIMER_SECONDS = 366 * 24 * 3600;

export function timerSpecOf(prop: ConfigurableProp, configured: unknown, minSeconds: number): TimerSpec {
  const override = fromObject(configured);
  if (configured !== undefined && configured !== null && !override)
    throw invalid(`configured_props.${prop.name} must be an object with intervalSeconds or cron`);
  const spec = override ?? fromObject(prop.default) ?? fromObject(prop) ?? { intervalSeconds: DEFAULT_TIMER_SECONDS, cron: null };
  if (spec.cron) {
    const gap = cronGapSeconds(spec.cron, prop.name);
    if (gap < minSeconds)
      throw invalid(`configured_props.${prop.name}: the cron schedule runs every ${gap} s; the minimum is ${minSeconds} s`);
    return spec;
  }
  const seconds = spec.intervalSeconds;
  if (seconds === null || !Number.isInteger(seconds)) throw invalid(`configured_props.${prop.name}: intervalSeconds must be an integer`);
  if (seconds < minSeconds) throw invalid(`configured_props.${prop.name}: intervalSeconds must be at least ${minSeconds}`);
  if (seconds > MAX_TIMER_SECONDS) throw invalid(`configured_props.${prop.name}: intervalSeconds must be at most ${MAX_TIMER_SECONDS}`);
  return spec;
}

function cronOf(cron: string, propName = "timer"): Cron {
  const { pattern, timezone } = splitCron(cron);
  try {
    return new Cron(pattern, { timezone, paused: true });
  } catch (error) {
    throw invalid(`configured_props.${propName}: invalid cron expression "${pattern}" (${(error as Error).message})`);
  }
}

/** The shortest gap between the next few runs of a cron schedule, in seconds. */
function cronGapSeconds(pattern: string, propName: string): number {
  const runs = cronOf(pattern, propName).nextRuns(6, new Date(Date.UTC(2030, 0, 1)));
  if (runs.length < 2) throw invalid(`configured_props.${propName}: the cron expression "${pattern}" does not repeat`);
  let gap = Infinity;
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, ((runs[i] as Date).getTime() - (runs[i - 1] as Date).getTime()) / 1000);
  return Math.round(gap);
}

/** The interval shown in configured_props and passed in the run event. */
export function intervalSecondsOf(spec: TimerSpec): number {
  if (spec.intervalSeconds !== null) return spec.intervalSeconds;
  return spec.cron ? cronGapSeconds(spec.cron, "timer") : DEFAULT_TIMER_SECONDS;
}

/** The first run strictly after `afterMs`: after downtime this is one run, never a burst. */
export function nextRunAfter(spec: TimerSpec, afterMs: number): number {
  if (spec.cron) {
    const next = cronOf(spec.cron).nextRun(new Date(afterMs));
    return next ? next.getTime() : afterMs + DEFAULT_TIMER_SECONDS * 1000;
  }
  return afterMs + (spec.intervalSeconds ?? DEFAULT_TIMER_SECONDS) * 1000;
}
