// The addresses of this host's own interfaces, for the egress guard to refuse: a service bound
// to 0.0.0.0 or :: answers at the interface address too, which no fixed range covers (a public
// address of the host is a public address). Interfaces change (DHCP, a VPN coming up), so the
// list is read again on a timer; a check is then one Set lookup, never a system call.
import os from "node:os";
import { normalizeHostLiteral, type AddressSet } from "./egress-guard.js";

/** Re-read at least this often (the promise is at least every 60 s). */
export const HOST_ADDRESSES_REFRESH_MS = 30_000;

export interface HostAddresses extends AddressSet {
  /** The addresses in force, canonical text. */
  list(): string[];
  /** Reads the interfaces now (the timer does it every refreshMs). */
  refresh(): void;
  /** Stops the timer. */
  close(): void;
}

export interface HostAddressOptions {
  /** The interfaces' addresses in any spelling; os.networkInterfaces() by default. */
  read?: () => string[];
  refreshMs?: number;
}

export function readInterfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
}

export function createHostAddresses(options: HostAddressOptions = {}): HostAddresses {
  const read = options.read ?? readInterfaceAddresses;
  let addresses = new Set<string>();
  const refresh = () => {
    let raw: string[];
    try {
      raw = read();
    } catch {
      // Keep the last list: an interface read that fails must not open the host up.
      return;
    }
    const next = new Set<string>();
    for (const address of raw) {
      const canonical = normalizeHostLiteral(address);
      if (canonical !== undefined) next.add(canonical);
    }
    addresses = next;
  };
  refresh();
  const timer = setInterval(refresh, options.refreshMs ?? HOST_ADDRESSES_REFRESH_MS);
  // A background refresh never keeps the process alive.
  timer.unref();
  return {
    has: (address) => addresses.has(address),
    list: () => [...addresses],
    refresh,
    close: () => clearInterval(timer),
  };
}

let system: HostAddresses | undefined;

/**
 * This process's (or worker thread's) reader of the real interfaces, started on first use: every
 * service-side egress path (proxy, webhooks, OAuth refresh, component_url) consults the same one.
 */
export function systemHostAddresses(): HostAddresses {
  system ??= createHostAddresses();
  return system;
}
