// An emitter's stream, live: the recent events first, then new ones as the tail sends them.
import { api, enc } from "../api.js";
import { errorBox, h, jsonView, time } from "../dom.js";
import { followTail, type TailEvent } from "../live-tail.js";

const KEEP = 200;

/** kind: "sources" or "workflows"; stream: "" for the default stream, "$logs" or "$errors". */
export function liveEvents(
  kind: "sources" | "workflows",
  id: string,
  stream: string,
  signal: AbortSignal,
  extra?: (event: TailEvent) => Node | null,
): HTMLElement {
  const state = h("span", { class: "state" }, "connecting…");
  const list = h("ol", { class: "events", "data-stream": stream || "default" });
  const section = h("section", { class: "live" }, h("h3", {}, stream || "events", " ", state), list);
  const seen = new Set<string>();
  const add = (event: TailEvent, atTop: boolean) => {
    if (seen.has(event.id)) return;
    seen.add(event.id);
    const data = event.data ?? {};
    const at = typeof data.indexed_at_ms === "number" ? time(data.indexed_at_ms) : event.id;
    const item = h(
      "li",
      { class: "event", "data-id": event.id },
      h("span", { class: "meta" }, at, " · ", event.id),
      jsonView(data.event ?? data, "event"),
      data.metadata ? jsonView(data.metadata, "metadata") : null,
      data.metadata?.truncated ? fullEventButton(kind, id, stream, event.id) : null,
      extra?.(event) ?? null,
    );
    if (atTop) list.prepend(item);
    else list.append(item);
    while (list.children.length > KEEP) list.lastElementChild?.remove();
  };
  const query = stream ? `?event_name=${enc(stream)}` : "";
  void (async () => {
    let newest: string | undefined;
    try {
      const page = await api<{ data: { id: string }[] }>("GET", `/${kind}/${enc(id)}/event_summaries${query}${query ? "&" : "?"}limit=20`);
      // Summaries come newest first.
      for (const summary of page.data) add({ id: summary.id, data: summary }, false);
      // With no event yet, the tail starts from the first one, so none written between
      // this read and the tail's start is missed.
      newest = page.data[0]?.id ?? "0-0";
    } catch (error) {
      section.append(errorBox(error));
    }
    await followTail({
      path: `/${kind}/${enc(id)}/sse${query}`,
      lastEventId: newest,
      signal,
      onEvent: (event) => add(event, true),
      onState: (s, detail) => (state.textContent = detail ? `${s}: ${detail}` : s === "open" ? "live" : s),
    });
  })();
  return section;
}

/** Summaries cut events over 1 KB short; the full event is read from the newest 100. */
function fullEventButton(kind: string, id: string, stream: string, eventId: string): HTMLElement {
  const button = h("button", {}, "Load the full event");
  button.addEventListener("click", async () => {
    try {
      const query = `expand=event&limit=100${stream ? `&event_name=${enc(stream)}` : ""}`;
      const page = await api<{ data: { id: string; event: unknown }[] }>("GET", `/${kind}/${enc(id)}/event_summaries?${query}`);
      const found = page.data.find((summary) => summary.id === eventId);
      const view = found ? jsonView(found.event, "full event") : h("p", {}, "The event is no longer among the newest 100.");
      if (view instanceof HTMLDetailsElement) view.open = true;
      button.replaceWith(view);
    } catch (error) {
      button.replaceWith(errorBox(error));
    }
  });
  return button;
}
