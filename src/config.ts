// The only place that reads the environment. Everything else receives a Config.
import { resolve } from "node:path";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  adminToken: string | undefined;
  bootstrapApiKey: string | undefined;
  allowPrivateEgress: boolean;
  webhookRetryScheduleSeconds: number[];
  minTimerSeconds: number;
  runTimeoutSeconds: number;
  runMemoryMb: number;
  smtpUrl: string | undefined;
  smtpFrom: string;
  /** Port of the inbound SMTP listener for e-mail sources (api role, on `host`); unset, there is none. */
  smtpInboundPort: number | undefined;
  /** Domain of e-mail sources' addresses (`<key>@<domain>`); the host of publicUrl by default. */
  emailDomain: string;
  /** Largest message the inbound SMTP listener accepts (advertised with SIZE). */
  smtpMaxMessageBytes: number;
  /** Connections at once from one client address (an IPv6 /64) to the inbound listener; past it 421. */
  smtpMaxConnectionsPerClient: number;
  /** Messages (MAIL FROM) per minute from one client address (an IPv6 /64); past it 451. */
  smtpMaxMessagesPerClientMinute: number;
  /** PEM files of the certificate and key STARTTLS offers on the inbound listener; unset, no STARTTLS. */
  smtpTlsCertFile: string | undefined;
  smtpTlsKeyFile: string | undefined;
  freeDailyInvocations: number;
  freeDailyComputeMs: number;
  apiRateLimitPerMinute: number;
  /** Failed authentications (API keys, admin token) per client address and minute, then 429. */
  authFailuresPerMinute: number;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /** Open live tails (SSE) per account. */
  maxSsePerAccount: number;
  /** Open egress tunnels (CONNECT through the egress proxy) an account's runners may hold at once. */
  maxTunnelsPerAccount: number;
  /** Named streams one emitter may have besides the default stream, $errors and $logs. */
  maxStreamsPerEmitter: number;
  /** Bytes of stored events an account may hold. */
  accountStorageBytes: number;
  registryDir: string | undefined;
  /** npm packages in the shape of `@pipedream/<app>` recorded and installed at start (SLUICE_REGISTRY_PACKAGES, `name[@version]` each). */
  registryPackages: string[];
  /** The npm registry packages are installed from (SLUICE_NPM_REGISTRY); npm's own configuration when unset. */
  npmRegistry: string | undefined;
  /** The npm package cache's size cap (SLUICE_PACKAGE_CACHE_MB); least recently used packages go past it. */
  packageCacheMb: number;
  /** npm installs one account may start per UTC day (SLUICE_NPM_INSTALLS_PER_DAY); packages found in the cache never count. */
  npmInstallsPerDay: number;
  /** CA certificates user code trusts besides the built-in ones (NODE_EXTRA_CA_CERTS, e.g. behind a TLS-inspecting proxy). */
  extraCaCertsFile: string | undefined;
  logLevel: string;
  /** How long a worker's claim on a job lasts without renewal; a crashed worker's jobs return after it. */
  queueLeaseSeconds: number;
  /** Attempts a job gets before it is dead (kept for an operator to see and retry, never run again by itself). */
  jobMaxAttempts: number;
  /** Seconds between comment lines that keep live tails (SSE) open. */
  sseKeepaliveSeconds: number;
  /** How runner processes are isolated: bwrap (bubblewrap), none, or auto (bwrap when it works). */
  sandbox: SandboxSetting;
  /** Per execution: events it may emit, their bytes in all, and the size of one event (JSON). */
  maxEmitsPerRun: number;
  maxEmitBytesPerRun: number;
  maxEventBytes: number;
  /** Per runner process tree: threads and processes, open files. */
  runMaxThreads: number;
  runMaxOpenFiles: number;
  /** Bearer token /metrics requires; unset, only loopback clients (not behind a proxy) may read it. */
  metricsToken: string | undefined;
  /** Where a process without the api role serves /metrics; unset, it serves none. */
  metricsPort: number | undefined;
  /** Finished deliveries (with their attempts) and $logs events older than this many days are pruned by the worker role. */
  deliveryRetentionDays: number;
  /** Bytes the files of one source's `dir` props may take (SLUICE_SOURCE_FILES_MB). */
  sourceFilesBytes: number;
  /** Files one source's `dir` props may hold (SLUICE_SOURCE_FILES_MAX). */
  sourceFilesMax: number;
  /** Key of connected accounts' credentials (32 bytes); unset, a key file in dataDir (SQLite only). */
  secretKey: Buffer | undefined;
}

export type SandboxSetting = "auto" | "bwrap" | "none";

/** What a process does (`sluice serve --role`); every role when none is named. */
export type Role = "api" | "worker" | "scheduler";
export const ALL_ROLES: Role[] = ["api", "worker", "scheduler"];

export class ConfigError extends Error {}

export const MIN_ADMIN_TOKEN_LENGTH = 32;
/** One minute: a retention shorter than that would prune what a client is still reading. */
const MIN_RETENTION_DAYS = 1 / (24 * 60);

/** Refuses settings that would leave the service open: a short, guessable admin token. */
export function assertSafeConfig(config: Pick<Config, "adminToken">): void {
  if (config.adminToken !== undefined && config.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `SLUICE_ADMIN_TOKEN must have at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it has ${config.adminToken.length}); generate one with: openssl rand -hex 32`,
    );
  }
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function positiveNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new ConfigError(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

/** A TCP port: 0 (any free port) to 65535; undefined when unset. */
function optionalPort(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new ConfigError(`${name} must be a port number from 0 to 65535, got "${raw}"`);
  return value;
}

/** A domain name (letters, digits, hyphens, dots) or an IP literal, as e-mail addresses use it; lower-cased. */
function emailDomain(env: Env, publicUrl: string): string {
  const raw = env.SLUICE_EMAIL_DOMAIN?.trim();
  if (!raw) {
    try {
      return new URL(publicUrl).hostname.toLowerCase();
    } catch {
      throw new ConfigError(`SLUICE_PUBLIC_URL must be an absolute URL like https://sluice.example.com, got "${publicUrl}"`);
    }
  }
  const domain = raw.toLowerCase();
  if (
    !/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(domain) &&
    !/^\[[0-9a-f:.]+\]$/.test(domain)
  ) {
    throw new ConfigError(`SLUICE_EMAIL_DOMAIN must be a domain name like mail.example.com, got "${raw}"`);
  }
  return domain;
}

/** Both files of a certificate and its key, or neither. */
function tlsFiles(env: Env, certName: string, keyName: string): { cert: string | undefined; key: string | undefined } {
  const cert = env[certName] || undefined;
  const key = env[keyName] || undefined;
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError(`${certName} and ${keyName} go together: set both (PEM files) to offer STARTTLS, or neither`);
  return { cert, key };
}

function bool(env: Env, name: string): boolean {
  return ["1", "true", "yes", "on"].includes((env[name] ?? "").toLowerCase());
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = (env[name] ?? "").trim().toLowerCase();
  if (raw === "") return fallback;
  if (!(choices as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${choices.join(", ")}, got "${env[name]}"`);
  return raw as T;
}

function schedule(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const parts = raw.split(",").map((s) => Number(s.trim()));
  if (parts.some((n) => !Number.isFinite(n) || n < 0)) throw new ConfigError(`${name} must be comma-separated seconds, got "${raw}"`);
  return parts;
}

/** A 32-byte key given as 64 hex digits or base64. */
export function parseSecretKey(raw: string, name: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(text)
    ? Buffer.from(text, "hex")
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
      ? Buffer.from(text, "base64")
      : Buffer.alloc(0);
  if (key.length !== 32)
    throw new ConfigError(`${name} must be 32 bytes as base64 or 64 hex digits; generate one with: openssl rand -base64 32`);
  return key;
}

/** The files travel in the runner's messages (as base64), which leave room for about 10 MB. */
function sourceFilesMb(env: Env): number {
  const mb = int(env, "SLUICE_SOURCE_FILES_MB", 8, 1);
  if (mb > 10) throw new ConfigError(`SLUICE_SOURCE_FILES_MB must be at most 10, got ${mb}`);
  return mb;
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http or https URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${name} must be an http or https URL, got "${raw}"`);
  return url.toString();
}

function secretKey(env: Env, name: string): Buffer | undefined {
  const raw = env[name];
  return raw ? parseSecretKey(raw, name) : undefined;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, "PORT", 8080);
  const host = env.HOST || "127.0.0.1";
  const publicHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const publicUrl = (env.SLUICE_PUBLIC_URL || `http://${publicHost.includes(":") ? `[${publicHost}]` : publicHost}:${port}`).replace(
    /\/+$/,
    "",
  );
  const smtpTls = tlsFiles(env, "SLUICE_SMTP_TLS_CERT_FILE", "SLUICE_SMTP_TLS_KEY_FILE");
  const config: Config = {
    port,
    host,
    dataDir: resolve(env.SLUICE_DATA_DIR || "./data"),
    databaseUrl: env.DATABASE_URL || undefined,
    publicUrl,
    adminToken: env.SLUICE_ADMIN_TOKEN || undefined,
    bootstrapApiKey: env.SLUICE_BOOTSTRAP_API_KEY || undefined,
    allowPrivateEgress: bool(env, "SLUICE_ALLOW_PRIVATE_EGRESS"),
    webhookRetryScheduleSeconds: schedule(env, "SLUICE_WEBHOOK_RETRY_SCHEDULE", "5,300,1800,7200,18000,36000,36000"),
    minTimerSeconds: int(env, "SLUICE_MIN_TIMER_SECONDS", 15, 1),
    runTimeoutSeconds: int(env, "SLUICE_RUN_TIMEOUT_SECONDS", 30, 1),
    runMemoryMb: int(env, "SLUICE_RUN_MEMORY_MB", 256, 16),
    smtpUrl: env.SLUICE_SMTP_URL || undefined,
    smtpFrom: env.SLUICE_SMTP_FROM || "sluice@localhost",
    smtpInboundPort: optionalPort(env, "SLUICE_SMTP_INBOUND_PORT"),
    emailDomain: emailDomain(env, publicUrl),
    smtpMaxMessageBytes: int(env, "SLUICE_SMTP_MAX_MESSAGE_BYTES", 4 * 1024 * 1024, 1024),
    smtpMaxConnectionsPerClient: int(env, "SLUICE_SMTP_MAX_CONNECTIONS_PER_CLIENT", 5, 1),
    smtpMaxMessagesPerClientMinute: int(env, "SLUICE_SMTP_MAX_MESSAGES_PER_CLIENT_MINUTE", 60, 1),
    smtpTlsCertFile: smtpTls.cert,
    smtpTlsKeyFile: smtpTls.key,
    freeDailyInvocations: int(env, "SLUICE_FREE_DAILY_INVOCATIONS", 10_000),
    freeDailyComputeMs: int(env, "SLUICE_FREE_DAILY_COMPUTE_MS", 30 * 60 * 1000),
    apiRateLimitPerMinute: int(env, "SLUICE_API_RATE_LIMIT_PER_MINUTE", 6000, 1),
    authFailuresPerMinute: int(env, "SLUICE_AUTH_FAILURES_PER_MINUTE", 60, 1),
    trustProxy: bool(env, "SLUICE_TRUST_PROXY"),
    maxSsePerAccount: int(env, "SLUICE_MAX_SSE_PER_ACCOUNT", 50, 1),
    maxTunnelsPerAccount: int(env, "SLUICE_MAX_TUNNELS_PER_ACCOUNT", 64, 1),
    maxStreamsPerEmitter: int(env, "SLUICE_MAX_STREAMS_PER_EMITTER", 20, 1),
    accountStorageBytes: int(env, "SLUICE_ACCOUNT_STORAGE_MB", 1024, 1) * 1024 * 1024,
    registryDir: env.SLUICE_REGISTRY_DIR || undefined,
    registryPackages: list(env, "SLUICE_REGISTRY_PACKAGES"),
    npmRegistry: httpUrl(env, "SLUICE_NPM_REGISTRY"),
    packageCacheMb: int(env, "SLUICE_PACKAGE_CACHE_MB", 2048, 1),
    npmInstallsPerDay: int(env, "SLUICE_NPM_INSTALLS_PER_DAY", 100, 1),
    extraCaCertsFile: env.NODE_EXTRA_CA_CERTS || undefined,
    logLevel: env.LOG_LEVEL || "info",
    queueLeaseSeconds: int(env, "SLUICE_QUEUE_LEASE_SECONDS", 60, 1),
    jobMaxAttempts: int(env, "SLUICE_JOB_MAX_ATTEMPTS", 25, 1),
    sseKeepaliveSeconds: int(env, "SLUICE_SSE_KEEPALIVE_SECONDS", 15, 1),
    sandbox: oneOf(env, "SLUICE_SANDBOX", ["auto", "bwrap", "none"] as const, "auto"),
    maxEmitsPerRun: int(env, "SLUICE_MAX_EMITS_PER_RUN", 1000, 1),
    maxEmitBytesPerRun: int(env, "SLUICE_MAX_EMIT_BYTES_PER_RUN", 16 * 1024 * 1024, 1024),
    maxEventBytes: int(env, "SLUICE_MAX_EVENT_BYTES", 2 * 1024 * 1024, 1024),
    runMaxThreads: int(env, "SLUICE_RUN_MAX_THREADS", 128, 16),
    runMaxOpenFiles: int(env, "SLUICE_RUN_MAX_OPEN_FILES", 1024, 64),
    metricsToken: env.SLUICE_METRICS_TOKEN || undefined,
    metricsPort: env.SLUICE_METRICS_PORT ? int(env, "SLUICE_METRICS_PORT", 0) : undefined,
    // Fractions keep hours (0.25 = 6 h) on deployments that deliver more than they can keep.
    deliveryRetentionDays: positiveNumber(env, "SLUICE_DELIVERY_RETENTION_DAYS", 30, MIN_RETENTION_DAYS),
    sourceFilesBytes: sourceFilesMb(env) * 1024 * 1024,
    sourceFilesMax: int(env, "SLUICE_SOURCE_FILES_MAX", 1000, 1),
    secretKey: secretKey(env, "SLUICE_SECRET_KEY"),
  };
  // Several processes share a PostgreSQL database: a key file in one data directory would not do.
  if (config.databaseUrl && !config.secretKey)
    throw new ConfigError(
      "SLUICE_SECRET_KEY is required when DATABASE_URL is set (32 bytes, base64 or 64 hex digits); generate one with: openssl rand -base64 32",
    );
  assertSafeConfig(config);
  return config;
}
