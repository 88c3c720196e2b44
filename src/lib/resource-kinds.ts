// The resources a subscription can name, as one closed table: sources emit and listen,
// workflows emit and listen, webhooks only listen. Everything that tells them apart by id
// (ownership checks, emitter globs, delivery to listeners, metrics labels, messages) reads it
// here, so a new kind is one row and the type checker finds every place that must handle it.
// It lives in lib because the metrics labels (lib) name listener kinds too.
import { idPrefix, type IdPrefix } from "./ids.js";

interface ResourceKindRow {
  /** What its ids start with, before the `_`. */
  readonly prefix: IdPrefix;
  /** What it is called in messages, and its `listener` label in metrics. */
  readonly noun: string;
  /** The table of its rows; each has `id` and `user_id`. */
  readonly table: "sources" | "workflows" | "webhooks";
  /** Its events can be subscribed to, by id or by the glob `<prefix>_*` (every one of the account). */
  readonly emits: boolean;
  /** Deliveries can be made to it. */
  readonly listens: boolean;
}

/** In the order messages list them. */
export const RESOURCE_KINDS = {
  workflow: { prefix: "p", noun: "workflow", table: "workflows", emits: true, listens: true },
  source: { prefix: "dc", noun: "source", table: "sources", emits: true, listens: true },
  webhook: { prefix: "wh", noun: "webhook", table: "webhooks", emits: false, listens: true },
} as const satisfies Record<string, ResourceKindRow>;

type Table = typeof RESOURCE_KINDS;
export type ResourceKind = keyof Table;
/** Kinds whose events can be subscribed to: "workflow" | "source". */
export type EmitterKind = { [K in ResourceKind]: Table[K]["emits"] extends true ? K : never }[ResourceKind];
/** Kinds deliveries can be made to: "workflow" | "source" | "webhook". */
export type ListenerKind = { [K in ResourceKind]: Table[K]["listens"] extends true ? K : never }[ResourceKind];
/** Listener kinds delivered to by a handler main.ts builds; webhooks are POSTed by the delivery worker itself. */
export type HandledListenerKind = Exclude<ListenerKind, "webhook">;

const ALL = Object.keys(RESOURCE_KINDS) as ResourceKind[];
export const EMITTER_KINDS = ALL.filter((kind) => RESOURCE_KINDS[kind].emits) as EmitterKind[];
export const LISTENER_KINDS = ALL.filter((kind) => RESOURCE_KINDS[kind].listens) as ListenerKind[];

const BY_PREFIX: ReadonlyMap<string, ResourceKind> = new Map(ALL.map((kind) => [RESOURCE_KINDS[kind].prefix, kind]));

/** The kind of a resource id, by its prefix; undefined for any other id. */
export function kindOfId(id: string): ResourceKind | undefined {
  return BY_PREFIX.get(idPrefix(id) ?? "");
}

/** The glob that names every emitter of this id's kind in the account: `dc_*`, `p_*`. */
export const emitterGlob = (emitterId: string): string => `${idPrefix(emitterId)}_*`;

/** The emitter globs a subscription may name, one per emitting kind. */
export const EMITTER_GLOBS: readonly string[] = EMITTER_KINDS.map((kind) => `${RESOURCE_KINDS[kind].prefix}_*`);

/** "a, b or c" */
export function oneOf(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** "a workflow id (p_…)" */
export const describeIdOf = (kind: ResourceKind): string => `a ${RESOURCE_KINDS[kind].noun} id (${RESOURCE_KINDS[kind].prefix}_…)`;
