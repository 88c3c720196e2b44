// Typed tables shared by SQLite and PostgreSQL. Timestamps are milliseconds (bigint),
// booleans are 0/1 integers and JSON is stored as text, so one schema serves both.
import type { Generated } from "kysely";

export interface UsersTable {
  id: string;
  username: string;
  email: string;
  plan: "free" | "paid";
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  key_hash: string;
  key_hint: string;
  name: string | null;
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

export interface WebhooksTable {
  id: string;
  user_id: string;
  name: string | null;
  description: string | null;
  url: string;
  active: number;
  signing_secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface SubscriptionsTable {
  id: string;
  user_id: string;
  emitter_id: string;
  listener_id: string;
  event_name: string;
  created_at: number;
}

export interface AutoSubscriptionsTable {
  id: string;
  user_id: string;
  listener_id: string;
  event_name: string;
  created_at: number;
}

export interface UsageDailyTable {
  user_id: string;
  day: string; // YYYY-MM-DD in UTC
  invocations: number;
  compute_ms: number;
}

export interface WorkflowsTable {
  id: string;
  user_id: string;
  name: string;
  steps: string; // JSON [{id, name, code}]
  active: number;
  endpoint_key: string;
  custom_response: number;
  deployment_id: string;
  is_error_workflow: number;
  created_at: number;
  updated_at: number;
}

export interface ConnectedAccountsTable {
  id: string;
  user_id: string;
  app: string;
  name: string | null;
  fields: string; // JSON array of the credentials' field names
  credentials: string; // AES-256-GCM ciphertext (domain/accounts/credential-cipher.ts)
  /** The source and app prop whose inline `$auth` made this account, if one did. */
  source_id: string | null;
  prop_name: string | null;
  created_at: number;
  updated_at: number;
}

export interface SecretChecksTable {
  name: string;
  value: string;
}

export interface SourcesTable {
  id: string;
  user_id: string;
  component_id: string;
  name: string;
  name_slug: string;
  configured_props: string; // JSON
  active: number;
  endpoint_key: string | null;
  custom_response: number;
  timer_interval_seconds: number | null;
  timer_cron: string | null;
  next_run_at: number | null;
  state: string; // JSON: $.service.db
  dedupe_state: string; // JSON
  run_lock_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface EventsTable {
  emitter_id: string;
  ms: number;
  seq: number;
  id: string; // "<ms>-<seq>"
  user_id: string;
  stream: string;
  event: string; // JSON
  metadata: string; // JSON
}

export interface ComponentsTable {
  id: string;
  user_id: string | null; // NULL for published registry components
  key: string | null;
  name: string;
  version: string;
  code: string;
  code_hash: string; // sha256 hex of code
  component_url: string | null;
  /** JSON {relative path: code} for the relative imports of code deployed from local files. */
  files: string | null;
  metadata: string; // JSON ComponentMetadata
  created_at: number;
  updated_at: number;
}

export interface JobsTable {
  id: string;
  type: string;
  payload: string; // JSON
  user_id: string | null;
  concurrency_key: string | null;
  run_at: number;
  attempts: number;
  lease_token: string | null;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
}

export interface DeliveriesTable {
  id: string;
  user_id: string;
  listener_id: string;
  emitter_id: string;
  event_id: string;
  stream: string;
  event: string; // JSON copy of the event
  hops: number;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface DeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** Bytes of stored events per emitter, kept by triggers on events (migration 009). */
export interface EmitterStorageTable {
  emitter_id: string;
  user_id: string;
  bytes: number;
}

export interface Database {
  components: ComponentsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  webhooks: WebhooksTable;
  subscriptions: SubscriptionsTable;
  auto_subscriptions: AutoSubscriptionsTable;
  usage_daily: UsageDailyTable;
  sources: SourcesTable;
  events: EventsTable;
  workflows: WorkflowsTable;
  jobs: JobsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  emitter_storage: EmitterStorageTable;
  connected_accounts: ConnectedAccountsTable;
  secret_checks: SecretChecksTable;
}

// Keeps `Generated` imported for tables added by later migrations.
export type Serial = Generated<number>;
