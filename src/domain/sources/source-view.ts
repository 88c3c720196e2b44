// The API view of a source (spec: Source). Timestamps in Unix seconds.
import type { Ctx } from "../context.js";
import { toUnixSeconds } from "../../lib/clock.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import type { SourcesTable } from "../../store/schema.js";
import { emailAddress } from "../inbound-email/email-address.js";
import { configuredPropsView } from "./source-props.js";
import { endpointUrl } from "./runnable-source.js";
import { intervalSecondsOf } from "./timer-spec.js";
import { withDynamicProps } from "./dynamic-props.js";

export interface SourceView {
  id: string;
  user_id?: string;
  component_id: string;
  configured_props: Record<string, unknown>;
  active: boolean;
  created_at: number;
  updated_at: number;
  name: string;
  name_slug: string;
}

type ViewRow = Pick<
  SourcesTable,
  | "id"
  | "user_id"
  | "component_id"
  | "configured_props"
  | "active"
  | "endpoint_key"
  | "email_key"
  | "timer_interval_seconds"
  | "timer_cron"
  | "created_at"
  | "updated_at"
  | "name"
  | "name_slug"
> &
  Partial<Pick<SourcesTable, "dynamic_props">>;

export function sourceView(ctx: Ctx, row: ViewRow, metadata: ComponentMetadata, options: { withUserId: boolean }): SourceView {
  const timer =
    row.timer_cron || row.timer_interval_seconds !== null ? { intervalSeconds: row.timer_interval_seconds, cron: row.timer_cron } : null;
  const view: SourceView = {
    id: row.id,
    ...(options.withUserId ? { user_id: row.user_id } : {}),
    component_id: row.component_id,
    configured_props: configuredPropsView(withDynamicProps(metadata, row.dynamic_props), JSON.parse(row.configured_props), {
      timer,
      intervalSeconds: timer ? intervalSecondsOf(timer) : null,
      endpointUrl: endpointUrl(ctx, row.endpoint_key),
      emailAddress: emailAddress(ctx.config.emailDomain, row.email_key),
    }),
    active: Number(row.active) === 1,
    created_at: toUnixSeconds(Number(row.created_at)),
    updated_at: toUnixSeconds(Number(row.updated_at)),
    name: row.name,
    name_slug: row.name_slug,
  };
  return view;
}
