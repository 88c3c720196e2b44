// Checks a source's configured_props against its component's props and derives what the
// source needs: the plain values for the runner, the timer, the HTTP interface, an e-mail address.
import { invalid } from "../../lib/errors.js";
import type { ComponentMetadata, ConfigurableProp } from "../../runtime/code-runner.js";
import { isEmailProp } from "../inbound-email/email-address.js";
import { timerSpecOf, type TimerSpec } from "./timer-spec.js";

export const TIMER = "$.interface.timer";
export const HTTP = "$.interface.http";
export const DB = "$.service.db";
/** A folder of files kept for the source (source-files.ts); it takes no value. */
export const DIR = "dir";
/** Display-only props: configured by nobody, never required, not part of `this`. */
export const ALERT = "alert";
/** Events posted to the connected account its app prop names run the source (apphooks/); it takes no value. */
export const APPHOOK = "$.interface.apphook";

/** Props that take no configured value. */
const VALUELESS = new Set([DB, ALERT, DIR, APPHOOK]);

export interface ResolvedProps {
  /** Values of plain and app props, by name (what `this.<prop>` holds in the runner). */
  values: Record<string, unknown>;
  timer: TimerSpec | null;
  http: { customResponse: boolean } | null;
  /** Whether the source receives e-mail (an e-mail app prop): it then has an inbound address. */
  email: boolean;
}

export function resolveProps(metadata: ComponentMetadata, configured: Record<string, unknown>, minTimerSeconds: number): ResolvedProps {
  const values: Record<string, unknown> = {};
  let timer: TimerSpec | null = null;
  let http: ResolvedProps["http"] = null;
  let email = false;
  for (const prop of metadata.configurable_props) {
    if (prop.type === TIMER) timer = timerSpecOf(prop, configured[prop.name], minTimerSeconds);
    else if (prop.type === HTTP) http = { customResponse: Boolean(prop.customResponse) };
    else if (isEmailProp(prop)) email = true;
    else if (!VALUELESS.has(prop.type)) {
      const value = configured[prop.name] ?? prop.default;
      if (value === undefined && !prop.optional && !isApp(prop)) throw invalid(`configured_props.${prop.name} is required`);
      if (value !== undefined) values[prop.name] = value;
    }
  }
  return { values, timer, http, email };
}

const isApp = (prop: ConfigurableProp) => prop.type === "app";

/** configured_props as the API shows it: timer, HTTP and e-mail shapes, plain values as configured. */
export function configuredPropsView(
  metadata: ComponentMetadata,
  configured: Record<string, unknown>,
  derived: { timer: TimerSpec | null; intervalSeconds: number | null; endpointUrl: string | null; emailAddress: string | null },
): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const prop of metadata.configurable_props) {
    if (prop.type === TIMER) view[prop.name] = { cron: derived.timer?.cron ?? null, interval_seconds: derived.intervalSeconds };
    else if (prop.type === HTTP) view[prop.name] = { endpoint_url: derived.endpointUrl };
    else if (isEmailProp(prop)) view[prop.name] = { email_address: derived.emailAddress };
    else if (VALUELESS.has(prop.type)) continue;
    else if (isApp(prop)) {
      // Only the connected account's id: never credentials, even of a row saved with inline `$auth`.
      const id = (configured[prop.name] as { authProvisionId?: unknown } | undefined)?.authProvisionId;
      if (typeof id === "string") view[prop.name] = { authProvisionId: id };
    } else {
      const value = configured[prop.name] ?? prop.default;
      if (value !== undefined) view[prop.name] = value;
    }
  }
  return view;
}

export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 100) || "source"
  );
}
