// The workflow's trigger in the builder: an HTTP request (the default, at the workflow's
// endpoint_url), a schedule (an interval or a cron expression, with a time zone), events of
// one of the account's sources, or an e-mail to the workflow's address. Only the fields of
// the chosen kind are shown; value() gives the `trigger` field of POST/PUT /v1/workflows.
import { api } from "../api.js";
import { h } from "../dom.js";

export interface Trigger {
  type: "http" | "timer" | "source" | "email";
  cron?: string;
  intervalSeconds?: number;
  timezone?: string;
  source_id?: string;
  /** Shown, never sent: the HTTP endpoint and the e-mail address. */
  endpoint_url?: string;
  email_address?: string;
}

export interface TriggerForm {
  element: HTMLElement;
  value(): Trigger;
}

const KINDS: [Trigger["type"], string][] = [
  ["http", "HTTP request"],
  ["timer", "Schedule"],
  ["source", "Events of a source"],
  ["email", "E-mail"],
];

export function triggerForm(current: Trigger | undefined, workflow?: { endpoint_url?: string; email_address?: string }): TriggerForm {
  const trigger: Trigger = current ?? { type: "http" };
  const endpoint = trigger.endpoint_url ?? workflow?.endpoint_url;
  const address = trigger.email_address || workflow?.email_address;
  const kind = h(
    "select",
    { id: "trigger-kind" },
    KINDS.map(([value, label]) => h("option", { value, selected: value === trigger.type }, label)),
  );
  const every = h("input", {
    id: "trigger-interval",
    type: "number",
    min: 1,
    value: trigger.intervalSeconds === undefined ? undefined : String(trigger.intervalSeconds),
  });
  const cron = h("input", { id: "trigger-cron", placeholder: "0 9 * * 1-5", value: trigger.cron, spellcheck: false });
  const timezone = h("input", { id: "trigger-timezone", placeholder: "UTC", value: trigger.timezone });
  const source = h("select", { id: "trigger-source" }, h("option", { value: "" }, "— pick a source —"));
  const sourceNote = h("small", {});
  api<{ data: { id: string; name: string }[] }>("GET", "/users/me/sources?limit=100")
    .then(({ data }) => {
      for (const s of data) source.append(h("option", { value: s.id, selected: s.id === trigger.source_id }, s.name || s.id));
      if (data.length === 0) sourceNote.textContent = "The account has no sources yet.";
    })
    .catch((error) => (sourceNote.textContent = String(error.message ?? error)));

  const field = (id: string, label: string, input: HTMLElement, hint?: string) =>
    h("div", { class: "field" }, h("label", { for: id }, label), input, hint ? h("small", {}, hint) : null);
  const parts: Record<Trigger["type"], HTMLElement> = {
    http: h("p", {}, endpoint ? ["Runs on each request to ", h("code", {}, endpoint)] : "Runs on each request to its endpoint URL."),
    timer: h(
      "div",
      {},
      field("trigger-interval", "Every (seconds)", every, "Or leave empty and give a cron expression."),
      field("trigger-cron", "Cron expression", cron),
      field(
        "trigger-timezone",
        "Time zone of the cron schedule (optional)",
        timezone,
        "An IANA name such as Europe/Paris; UTC when empty.",
      ),
    ),
    source: h("div", {}, field("trigger-source", "Source", source), sourceNote),
    email: h(
      "p",
      {},
      address ? ["Runs on each e-mail to ", h("code", {}, address)] : "Runs on each e-mail to the workflow's address (shown once saved).",
    ),
  };
  const show = () => {
    for (const [type, part] of Object.entries(parts)) part.hidden = type !== kind.value;
  };
  kind.addEventListener("change", show);
  show();
  return {
    element: h(
      "fieldset",
      { class: "trigger" },
      h("legend", {}, "Trigger"),
      field("trigger-kind", "Starts on", kind),
      Object.values(parts),
    ),
    value() {
      const type = kind.value as Trigger["type"];
      if (type === "timer") {
        const out: Trigger = { type };
        if (every.value.trim()) return { ...out, intervalSeconds: Number(every.value) };
        if (!cron.value.trim()) throw new Error("a schedule needs an interval in seconds or a cron expression");
        out.cron = cron.value.trim();
        if (timezone.value.trim()) out.timezone = timezone.value.trim();
        return out;
      }
      if (type === "source") {
        if (!source.value) throw new Error("pick the source whose events start the workflow");
        return { type, source_id: source.value };
      }
      return { type };
    },
  };
}
