// The ports the server listens on (PORT, SLUICE_SMTP_INBOUND_PORT, SLUICE_METRICS_PORT) on
// HOST: free, or held by a running Sluice (its /healthz answers), not by something else.
import { createServer } from "node:net";
import type { Config } from "../../config.js";
import { fail, ok, warn, type CheckResult } from "./check.js";

interface Port {
  setting: string;
  port: number;
  /** Whether a Sluice holding it answers /healthz there (the API port). */
  http: boolean;
}

/** Listens on host:port for a moment: undefined when it could, else the error code. */
function tryListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Where to reach a server listening on `host` from this machine. */
const reachableHost = (host: string) => (host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host);

async function answersAsSluice(host: string, port: number): Promise<boolean> {
  const name = reachableHost(host);
  try {
    const response = await fetch(`http://${name.includes(":") ? `[${name}]` : name}:${port}/healthz`, {
      signal: AbortSignal.timeout(3000),
    });
    const body = (await response.json()) as { status?: unknown; sandbox?: unknown };
    return response.ok && body.status === "ok" && typeof body.sandbox === "string";
  } catch {
    return false;
  }
}

async function portCheck(host: string, { setting, port, http }: Port): Promise<CheckResult> {
  const name = `port ${setting}`;
  if (port === 0) return ok(name, `${setting}=0: any free port, chosen at start`);
  const code = await tryListen(host, port);
  if (code === undefined) return ok(name, `${host}:${port} is free`);
  if (code === "EADDRINUSE") {
    if (http && (await answersAsSluice(host, port)))
      return ok(name, `${host}:${port} is in use by a running Sluice (its /healthz answered)`);
    const owner = `stop what listens there (see: ss -ltnp 'sport = :${port}') or set ${setting} to a free port`;
    if (http) return fail(name, `${host}:${port} is in use by something that is not Sluice`, owner);
    return warn(name, `${host}:${port} is in use (by this server, if it is running)`, `if Sluice is not running: ${owner}`);
  }
  if (code === "EACCES")
    return fail(
      name,
      `${host}:${port} may not be used by this user (ports below 1024 need root or CAP_NET_BIND_SERVICE)`,
      `set ${setting} to a port from 1024 up, behind a reverse proxy for 80/443`,
    );
  if (code === "EADDRNOTAVAIL")
    return fail(
      name,
      `HOST ${host} is not an address of this machine`,
      "set HOST to one of this machine's addresses (127.0.0.1, or 0.0.0.0 for all)",
    );
  return fail(name, `cannot listen on ${host}:${port} (${code})`, `set ${setting} to another port`);
}

export async function portChecks(config: Pick<Config, "host" | "port" | "smtpInboundPort" | "metricsPort">): Promise<CheckResult[]> {
  const ports: Port[] = [{ setting: "PORT", port: config.port, http: true }];
  if (config.smtpInboundPort !== undefined) ports.push({ setting: "SLUICE_SMTP_INBOUND_PORT", port: config.smtpInboundPort, http: false });
  if (config.metricsPort !== undefined) ports.push({ setting: "SLUICE_METRICS_PORT", port: config.metricsPort, http: false });
  return Promise.all(ports.map((port) => portCheck(config.host, port)));
}
