// All network access of user code, installed before any user code loads. The only way out of
// a runner is the egress proxy of the service (on a Unix socket whose path the runner gets as
// --egress-proxy=<path>): TCP and TLS are tunnelled through it and DNS is answered by it (the
// files named below). UDP is refused outright: the proxy carries no datagrams. Listening is
// refused unless the runner is in its own network namespace (--sandbox=bwrap), where nothing
// could reach the listener anyway.
import dgram from "node:dgram";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import { installDnsEgress } from "./dns-egress.js";
import { installNetEgress } from "./net-egress.js";
import type { ProxyAccess } from "./proxy-handshake.js";
import { installTlsEgress } from "./tls-egress.js";

export interface EgressSettings {
  /** The egress proxy's Unix socket; without it every connection fails. */
  proxyPath?: string;
  allowPrivate: boolean;
  sandboxed: boolean;
  /** A file of extra CA certificates (PEM) that TLS trusts besides Node's own. */
  extraCaCerts?: string;
}

export function egressSettings(argv: string[]): EgressSettings {
  const value = (name: string) => argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
  const settings: EgressSettings = {
    proxyPath: value("--egress-proxy") || undefined,
    allowPrivate: argv.includes("--allow-private-egress"),
    sandboxed: value("--sandbox") === "bwrap",
  };
  const extraCaCerts = value("--extra-ca-certs");
  return extraCaCerts ? { ...settings, extraCaCerts } : settings;
}

function denied(message: string, code: string): () => never {
  return () => {
    const error: NodeJS.ErrnoException = new Error(message);
    error.code = code;
    throw error;
  };
}

export function installEgressGuard(settings: EgressSettings): void {
  // Captured before patching: only the runner's own code reaches the proxy's Unix socket.
  const connect = net.Socket.prototype.connect as ProxyAccess["connect"];
  const proxy = settings.proxyPath ? { path: settings.proxyPath, connect } : undefined;
  installNetEgress(proxy, settings.allowPrivate);
  installTlsEgress(settings.extraCaCerts);
  installDnsEgress(proxy);

  const refuseUdp = denied("UDP is not available to user code", "EGRESS_UDP_REFUSED");
  dgram.createSocket = refuseUdp as typeof dgram.createSocket;
  for (const name of ["bind", "connect", "send"] as const) (dgram.Socket.prototype as unknown as Record<string, unknown>)[name] = refuseUdp;
  if (!settings.sandboxed)
    net.Server.prototype.listen = denied(
      "listening for connections is not available to user code",
      "ERR_ACCESS_DENIED",
    ) as typeof net.Server.prototype.listen;

  // ESM imports of these modules (`import { lookup } from "node:dns"`) see the patched functions.
  syncBuiltinESMExports();
}
