// Per-client limits of the inbound SMTP listener: connections at once and messages a minute
// from one client address. Anyone may connect without logging in, so without them one host
// could take every connection of the listener (it has 100 for all tenants) or keep the
// parser busy for everyone. An IPv6 client counts by its /64, the block one host is usually
// given: counting single addresses would let it pick a new one per connection.
//
// Messages are counted in windows of `windowMs` from a client's first message in the window.
// Memory is bounded: connection counts exist only while connections are open (at most the
// listener's own limit), and at most `maxTrackedClients` message windows are kept — past that
// the oldest window is forgotten, which can only let its client send a little early.

export interface ClientLimitsOptions {
  maxConnections: number;
  maxMessagesPerWindow: number;
  /** Length of a message window (a minute). */
  windowMs?: number;
  maxTrackedClients?: number;
  now: () => number;
}

export interface ClientLimits {
  /** Takes a connection for the client; false (and nothing taken) when it has its most already. */
  connect(address: string): boolean;
  /** Gives back a connection taken by connect. */
  disconnect(address: string): void;
  /** Counts a message of the client; false when it is past its most in this window. */
  message(address: string): boolean;
  /** Clients with open connections or a message window kept (the limiter's memory). */
  trackedClients(): number;
}

const MINUTE_MS = 60_000;
const MAX_TRACKED_CLIENTS = 10_000;

export function createClientLimits(options: ClientLimitsOptions): ClientLimits {
  const windowMs = options.windowMs ?? MINUTE_MS;
  const maxTracked = options.maxTrackedClients ?? MAX_TRACKED_CLIENTS;
  const connections = new Map<string, number>();
  // In the order their windows started: the first entry is the oldest.
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    connect(address) {
      const key = clientKey(address);
      const open = connections.get(key) ?? 0;
      if (open >= options.maxConnections) return false;
      connections.set(key, open + 1);
      return true;
    },
    disconnect(address) {
      const key = clientKey(address);
      const open = connections.get(key) ?? 0;
      if (open <= 1) connections.delete(key);
      else connections.set(key, open - 1);
    },
    message(address) {
      const key = clientKey(address);
      const now = options.now();
      let window = windows.get(key);
      if (!window || now - window.startedAt >= windowMs || now < window.startedAt) {
        windows.delete(key);
        window = { startedAt: now, count: 0 };
        windows.set(key, window);
        if (windows.size > maxTracked) windows.delete(windows.keys().next().value!);
      }
      window.count++;
      return window.count <= options.maxMessagesPerWindow;
    },
    trackedClients: () => connections.size + windows.size,
  };
}

/** What a client is counted by: an IPv4 address itself, an IPv6 address by its first 64 bits. */
export function clientKey(address: string): string {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "").toLowerCase();
  if (!plain.includes(":") || plain.includes(".") || plain.includes("%")) return plain;
  const [head = "", tail] = plain.split("::");
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}
