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
  /** JSON StoredTrigger (domain/workflows/triggers/); null (or absent on insert) for the HTTP trigger. */
  trigger?: string | null;
}

export type RunStatus = "running" | "paused" | "succeeded" | "failed" | "cancelled";
export type RunStepStatus = "succeeded" | "failed" | "skipped" | "paused" | "pending";

export interface WorkflowRunsTable {
  id: string;
  user_id: string;
  workflow_id: string;
  origin: string | null;
  driver: string | null;
  driver_until: number | null;
  status: RunStatus;
  summary: string | null;
  trigger_event: string; // JSON
  trigger_kind: string;
  context: string; // JSON RunContext
  hops: number;
  steps: string; // JSON, the workflow's steps when the run started
  next_step: number;
  wake_seq: number;
  created_at: number;
  ended_at: number | null;
  duration_ms: number | null;
}

export interface WorkflowRunStepsTable {
  run_id: string;
  position: number;
  step_id: string;
  name: string;
  status: RunStepStatus;
  started_at: number | null;
  duration_ms: number | null;
  exports: string | null; // JSON
  return_value: string | null; // JSON
  resume_data: string | null; // JSON
  logs: string | null; // JSON [{level, message}]
  error: string | null; // JSON {name, message, stack}
  runs: number;
  rerun_context: string | null; // JSON
  callback_request: string | null; // JSON
  flow: string | null; // JSON FlowRequest while paused
}

export interface WorkflowRunLinksTable {
  hash: string;
  run_id: string;
  action: "resume" | "cancel";
  wake_seq: number;
  expires_at: number;
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
  /** The path segment of the account's inbound URL, /a/<key> (migration 012). */
  inbound_key: string;
  created_at: number;
  updated_at: number;
  /** The OAuth refresh lease (migration 013): until when, and who holds it. */
  refresh_lease_until?: number | null;
  refresh_lease_owner?: string | null;
  /** Why the last OAuth refresh failed (no secrets in it); null once one succeeds. */
  refresh_failure?: string | null;
}

/** An OAuth 2 app the operator configured (migration 021). */
export interface OAuthAppsTable {
  app: string;
  client_id: string;
  client_secret: string; // AES-256-GCM ciphertext, bound to "oauth_app:<app>"
  authorize_url: string;
  token_url: string;
  scopes: string; // JSON array of strings
  created_at: number;
  updated_at: number;
}

/** An OAuth 2 connect in flight: its `state` (as a SHA-256), single use, until expires_at (ms). */
export interface OAuthConnectsTable {
  state_hash: string;
  user_id: string;
  app: string;
  name: string | null;
  code_verifier: string; // AES-256-GCM ciphertext, bound to the state's hash
  expires_at: number;
}

/** A source's `$.interface.apphook` prop bound to the connected account its app prop names. */
export interface ApphookBindingsTable {
  source_id: string;
  prop_name: string;
  account_id: string;
  /** JSON array of the event names the source takes ([] for all); NULL until eventNames() was evaluated. */
  event_names: string | null;
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
  /** The key of the source's inbound e-mail address, when its component has an e-mail prop. */
  email_key: string | null;
  custom_response: number;
  timer_interval_seconds: number | null;
  timer_cron: string | null;
  next_run_at: number | null;
  state: string; // JSON: $.service.db
  dedupe_state: string; // JSON
  run_lock_until: number | null;
  /** JSON configurable_props the component's additionalProps() added for this source; NULL when it has none. */
  dynamic_props: string | null;
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
  /** For a component of a registry package: the package, its exact version and the file's path in it. */
  package_name: string | null;
  package_version: string | null;
  package_path: string | null;
  created_at: number;
  updated_at: number;
}

/** An npm package whose sources are published, at the version every host installs. */
export interface RegistryPackagesTable {
  name: string;
  version: string;
  added_at: number;
  updated_at: number;
}

/** The component a published key stands for now. */
export interface RegistryComponentsTable {
  key: string;
  component_id: string;
  /** The registry package it came from; NULL for the registry/ files. */
  package_name: string | null;
  published_at: number;
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

/** A job that used up its attempts: out of the queue until an operator retries it. */
export interface DeadJobsTable {
  id: string;
  type: string;
  payload: string; // JSON
  user_id: string | null;
  concurrency_key: string | null;
  attempts: number;
  last_error: string | null;
  created_at: number;
  died_at: number;
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

/** An account's key-value store (migration 018); `bytes` is what its records hold. */
export interface DataStoresTable {
  id: string;
  user_id: string;
  name: string;
  bytes: number;
  created_at: number;
}

export interface DataStoreRecordsTable {
  store_id: string;
  key: string;
  value: string; // JSON
  /** Bytes of the key and the value's JSON, counted in the account's storage. */
  bytes: number;
  updated_at: number;
  expires_at: number | null;
}

export interface Database {
  components: ComponentsTable;
  registry_packages: RegistryPackagesTable;
  registry_components: RegistryComponentsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  webhooks: WebhooksTable;
  subscriptions: SubscriptionsTable;
  auto_subscriptions: AutoSubscriptionsTable;
  usage_daily: UsageDailyTable;
  sources: SourcesTable;
  events: EventsTable;
  workflows: WorkflowsTable;
  workflow_runs: WorkflowRunsTable;
  workflow_run_steps: WorkflowRunStepsTable;
  workflow_run_links: WorkflowRunLinksTable;
  jobs: JobsTable;
  dead_jobs: DeadJobsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  emitter_storage: EmitterStorageTable;
  connected_accounts: ConnectedAccountsTable;
  secret_checks: SecretChecksTable;
  apphook_bindings: ApphookBindingsTable;
  data_stores: DataStoresTable;
  data_store_records: DataStoreRecordsTable;
  oauth_apps: OAuthAppsTable;
  oauth_connects: OAuthConnectsTable;
}

// Keeps `Generated` imported for tables added by later migrations.
export type Serial = Generated<number>;
