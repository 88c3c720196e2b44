// What the egress proxy and the runner agree on beyond plain HTTP: the extra headers of a
// CONNECT exchange and of a failure, and the DNS query paths. Shared by both sides (the runner
// reads it too), so it imports nothing.

/** On a 200 to CONNECT: the address, port and family the tunnel reached. */
export const ADDRESS_HEADER = "x-sluice-address";
export const PORT_HEADER = "x-sluice-port";
export const FAMILY_HEADER = "x-sluice-family";
/**
 * On CONNECT, `x-sluice-ack: 1` asks the proxy to hold the server's bytes until the client
 * sends ACK_BYTE (which the proxy drops) after reading the 200. A client that hands its socket
 * over to another reader on `connect` (http2 takes the socket's handle) then never reads the
 * server's first bytes together with the proxy's answer.
 */
export const ACK_HEADER = "x-sluice-ack";
export const ACK_BYTE = 0x06;
/**
 * On CONNECT from a runner: the id of the execution running when the tunnel was asked for. The
 * tunnel is closed when that execution ends (an id the runner is not running closes at once).
 */
export const EXECUTION_HEADER = "x-sluice-execution";
/** On a failure: the cause as a Node error code (EGRESS_REFUSED, ENOTFOUND, ECONNREFUSED…). */
export const ERROR_HEADER = "x-sluice-egress-error";
/** On a failure: the step that failed, named like Node's `syscall` (getaddrinfo, connect…). */
export const SYSCALL_HEADER = "x-sluice-egress-syscall";

export const DNS_LOOKUP_PATH = "/dns/lookup";
export const DNS_RESOLVE_PATH = "/dns/resolve";
export const DNS_REVERSE_PATH = "/dns/reverse";
export const DNS_LOOKUP_SERVICE_PATH = "/dns/lookup-service";

/** A CONNECT past the account's cap of open tunnels; TUNNEL_LIMIT_HEADER carries the cap. */
export const EGRESS_TUNNEL_LIMIT = "EGRESS_TUNNEL_LIMIT";
export const TUNNEL_LIMIT_HEADER = "x-sluice-tunnel-limit";
export const TUNNEL_LIMIT_MESSAGE = "too many egress tunnels open for this account";

/** The refusal code of the egress guard (EgressRefusedError#code). */
export const EGRESS_REFUSED = "EGRESS_REFUSED";

/** Body of a failed DNS query: enough to rebuild Node's error in the runner. */
export interface DnsFailureBody {
  error: { code: string; syscall?: string; message: string; address?: string };
}
