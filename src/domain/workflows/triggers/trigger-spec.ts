// A workflow's trigger as the API takes it and as it is stored. Pipedream's trigger step stands
// for a source: an HTTP trigger is the workflow's own endpoint; a timer or e-mail trigger is a
// source the service makes for the workflow (and removes with it); a source trigger is a
// subscription to a source of the account. The stored form names what was made.
import { invalid } from "../../../lib/errors.js";

/** As the API takes it: which fields go with which type is checked here (checkTrigger). */
export interface TriggerBody {
  type: string;
  cron?: string;
  intervalSeconds?: number;
  timezone?: string;
  source_id?: string;
}

export type TriggerInput =
  | { type: "http" }
  | { type: "timer"; cron?: string; intervalSeconds?: number; timezone?: string }
  | { type: "source"; source_id: string }
  | { type: "email" };

const FIELDS: Record<string, string[]> = {
  http: [],
  email: [],
  source: ["source_id"],
  timer: ["cron", "intervalSeconds", "timezone"],
};

export type StoredTrigger =
  | { type: "http" }
  | { type: "timer"; cron?: string; intervalSeconds?: number; timezone?: string; source_id: string }
  | { type: "source"; source_id: string }
  | { type: "email"; source_id: string; email_key: string };

export const HTTP_TRIGGER: StoredTrigger = { type: "http" };

/** The trigger input with its fields checked (the schedule itself is checked as a timer prop's). */
export function checkTrigger(body: TriggerBody): TriggerInput {
  const allowed = FIELDS[body.type];
  if (!allowed) throw invalid("trigger.type must be one of http, timer, source, email");
  for (const field of Object.keys(body))
    if (field !== "type" && !allowed.includes(field)) throw invalid(`trigger.${field} does not go with a trigger of type ${body.type}`);
  const input = body as TriggerInput;
  switch (input.type) {
    case "http":
    case "email":
      return { type: input.type };
    case "source":
      if (typeof input.source_id !== "string" || !input.source_id.startsWith("dc_"))
        throw invalid("trigger.source_id must be a source id (dc_…)");
      return { type: "source", source_id: input.source_id };
    case "timer": {
      const hasCron = typeof input.cron === "string" && input.cron.trim() !== "";
      const hasInterval = input.intervalSeconds !== undefined;
      if (hasCron === hasInterval) throw invalid("a timer trigger takes one of cron and intervalSeconds");
      if (input.timezone !== undefined && !hasCron) throw invalid("trigger.timezone applies to a cron schedule");
      return hasCron
        ? { type: "timer", cron: (input.cron as string).trim(), ...(input.timezone !== undefined ? { timezone: input.timezone } : {}) }
        : { type: "timer", intervalSeconds: input.intervalSeconds };
    }
    default:
      throw invalid("trigger.type must be one of http, timer, source, email");
  }
}

/** The stored trigger of a workflow row (null: the default, HTTP). */
export function storedTrigger(text: string | null | undefined): StoredTrigger {
  if (!text) return HTTP_TRIGGER;
  return JSON.parse(text) as StoredTrigger;
}

/** Whether a stored trigger already is what the input asks for (a PUT that repeats it changes nothing). */
export function sameTrigger(stored: StoredTrigger, input: TriggerInput): boolean {
  const { source_id: _source, email_key: _key, ...rest } = stored as StoredTrigger & { source_id?: string; email_key?: string };
  const asked = input.type === "source" ? { type: input.type } : input;
  if (input.type === "source" && stored.type === "source" && stored.source_id !== input.source_id) return false;
  return JSON.stringify(sortKeys(rest)) === JSON.stringify(sortKeys(asked));
}

const sortKeys = (value: object) => Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
