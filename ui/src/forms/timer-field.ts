// A timer prop: every N seconds, or a cron schedule (UTC). Shown filled with the current
// schedule (the API shows {interval_seconds, cron}) or the component's default
// ({intervalSeconds} or {cron}); read as {intervalSeconds} or {cron}, as the API takes it.
import { h } from "../dom.js";
import type { Field } from "./prop-types.js";

export function timerField(id: string, initial: unknown): Field {
  const current = (initial && typeof initial === "object" ? initial : {}) as Record<string, unknown>;
  const cronNow = typeof current.cron === "string" ? current.cron : "";
  const secondsNow = Number(current.intervalSeconds ?? current.interval_seconds);
  const kind = h(
    "select",
    { id, "aria-label": "schedule kind" },
    h("option", { value: "interval" }, "every N seconds"),
    h("option", { value: "cron" }, "cron schedule (UTC)"),
  );
  const seconds = h("input", { id: `${id}-seconds`, type: "number", min: 1, step: 1, "aria-label": "interval in seconds" });
  const cron = h("input", { id: `${id}-cron`, type: "text", placeholder: "0 * * * *", "aria-label": "cron expression" });
  if (Number.isFinite(secondsNow) && secondsNow > 0) seconds.value = String(secondsNow);
  cron.value = cronNow;
  kind.value = cronNow ? "cron" : "interval";
  const show = () => {
    seconds.hidden = kind.value !== "interval";
    cron.hidden = kind.value !== "cron";
  };
  kind.addEventListener("change", show);
  show();
  return {
    element: h("div", { class: "timer-field" }, kind, seconds, cron),
    read: () => {
      if (kind.value === "cron") return cron.value.trim() ? { cron: cron.value.trim() } : undefined;
      if (seconds.value.trim() === "") return undefined;
      const n = Number(seconds.value);
      if (!Number.isInteger(n) || n < 1) throw new Error("timer: the interval is a whole number of seconds");
      return { intervalSeconds: n };
    },
  };
}
