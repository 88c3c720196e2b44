// The shapes in which providers post events to an account's inbound URL, and the names
// Pipedream's instant sources choose for them in eventNames(), so that those sources run
// unchanged on the provider's own requests:
// - Slack's Events API wraps each event in `{type: "event_callback", event: {type, …}}`; the
//   sources read the inner event (`event.channel`). They name it by its type ("message",
//   "reaction_added"), by Slack's subscription name for a message ("message.im", the type and
//   the channel type), by its channel's id (new messages in chosen channels), and by
//   "<type>:<channel id>" (reactions in chosen channels).
// - Slack's interactivity (buttons, shortcuts, modals) posts a form whose `payload` field is
//   JSON; the sources read that JSON and name it "interaction_events", optionally with the
//   channel id and an action's action_id ("interaction_events:<channel>:<action_id>").
// - Zoom posts `{event: "meeting.created", payload, …}`; the sources read `payload` of the
//   whole body and name it by `event`.
// - Discord's message objects, as bots relay them, carry their channel's id (`channelId`,
//   `channel_id` or `channelID`), the name Pipedream's Discord sources choose.
// - Anything else is named by its `type`, or the `type` of its `event` object.
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** A Slack Events API envelope's inner event, if the body is one. */
function slackInnerEvent(body: unknown): Record<string, unknown> | undefined {
  return isObject(body) && body.type === "event_callback" && isObject(body.event) ? body.event : undefined;
}

/** Slack's interactivity payload, if the body is its form (`payload=<JSON>`). */
function slackInteraction(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== "string" || !body.startsWith("payload=")) return undefined;
  try {
    const payload: unknown = JSON.parse(new URLSearchParams(body).get("payload") ?? "");
    return isObject(payload) && typeof payload.type === "string" ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** What run(event) receives: the event inside an envelope or form that carries one, else the body as posted. */
export function runEventOf(body: unknown): unknown {
  return slackInnerEvent(body) ?? slackInteraction(body) ?? body;
}

function interactionNames(payload: Record<string, unknown>): string[] {
  const channel = isObject(payload.channel) ? text(payload.channel.id) : undefined;
  const actions = Array.isArray(payload.actions)
    ? payload.actions.map((action) => (isObject(action) ? text(action.action_id) : undefined))
    : [];
  const names: Array<string | undefined> = ["interaction_events", channel && `interaction_events:${channel}`];
  for (const action of actions) {
    if (!action) continue;
    names.push(`interaction_events:${action}`);
    if (channel) names.push(`interaction_events:${channel}:${action}`);
  }
  return unique(names);
}

/** The channel a Slack event happened in: a message's `channel`, a reaction's `item.channel`, a created channel's `channel.id`. */
function slackChannel(event: Record<string, unknown>): string | undefined {
  if (isObject(event.channel)) return text(event.channel.id);
  return text(event.channel) ?? (isObject(event.item) ? text(event.item.channel) : undefined);
}

/** Every name the body answers to (a source takes it when one of them is among its eventNames). */
export function bodyEventNames(body: unknown): string[] {
  const interaction = slackInteraction(body);
  if (interaction) return interactionNames(interaction);
  if (!isObject(body)) return [];
  const slack = slackInnerEvent(body);
  if (slack) {
    const type = text(slack.type);
    const channel = slackChannel(slack);
    const channelType = text(slack.channel_type);
    return unique([
      type,
      type && channelType ? `${type}.${channelType}` : undefined,
      channel,
      type && channel ? `${type}:${channel}` : undefined,
    ]);
  }
  const zoom = text(body.event);
  if (zoom && isObject(body.payload)) return [zoom];
  const discordChannel = text(body.channelId) ?? text(body.channel_id) ?? text(body.channelID);
  const type = text(body.type) ?? (isObject(body.event) ? text(body.event.type) : undefined);
  return unique([type, discordChannel]);
}

const unique = (names: Array<string | undefined>): string[] => [...new Set(names.filter((name): name is string => name !== undefined))];
