import { invalid } from "../../lib/errors.js";

/** Stream names: "" (or "default") is the default stream; `$errors`, `$logs` or a named stream. */
export function validateEventName(name: string): string {
  if (name.length > 128) throw invalid("event_name must be at most 128 characters");
  if ([...name].some((ch) => ch.charCodeAt(0) < 0x20)) throw invalid("event_name must not contain control characters");
  return name;
}

/**
 * The stream an event_name selects (of a subscription, or `?event_name=` of a read):
 * absent, "" and "default" are the default stream.
 */
export function streamOf(eventName: string | undefined): string {
  return !eventName || eventName === "default" ? "" : eventName;
}

/**
 * The stored names that mean the same stream as `eventName`: "" and "default" are one
 * stream, so a subscription made with either is found (and deleted) with either, and
 * never exists twice (which would deliver every event twice).
 */
export function sameStreamNames(eventName: string): string[] {
  return streamOf(eventName) === "" ? ["", "default"] : [eventName];
}
