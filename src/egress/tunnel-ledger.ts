// Who holds which egress tunnel. An open tunnel is two file descriptors in the service, held
// for as long as user code likes, so they are counted per account (a cap, SLUICE_MAX_TUNNELS_PER_ACCOUNT)
// and kept per runner door with the execution that opened them, to close them when it ends.
import type { Duplex } from "node:stream";

export interface TunnelSlot {
  /** Ties the slot to the tunnel's client socket: destroyed when its execution or runner ends. */
  attach(client: Duplex): void;
  /** Gives the slot back (once; later calls do nothing). */
  release(): void;
}

export interface TunnelOwner {
  account: string;
  /** The runner's open tunnels by the execution that opened them (undefined: none named). */
  tunnels: Map<Duplex, number | undefined>;
}

export interface TunnelLedger {
  /** A slot for a new tunnel, or undefined when the account already holds `max`. */
  take(owner: TunnelOwner, execution: number | undefined): TunnelSlot | undefined;
  /** Open tunnels of an account (for tests and diagnostics). */
  count(account: string): number;
  readonly max: number;
}

export function createTunnelLedger(max: number): TunnelLedger {
  const open = new Map<string, number>();
  return {
    max,
    count: (account) => open.get(account) ?? 0,
    take(owner, execution) {
      const held = open.get(owner.account) ?? 0;
      if (held >= max) return undefined;
      open.set(owner.account, held + 1);
      let client: Duplex | undefined;
      let released = false;
      return {
        attach(socket) {
          if (released) return void socket.destroy();
          client = socket;
          owner.tunnels.set(socket, execution);
        },
        release() {
          if (released) return;
          released = true;
          if (client) owner.tunnels.delete(client);
          const left = (open.get(owner.account) ?? 1) - 1;
          if (left > 0) open.set(owner.account, left);
          else open.delete(owner.account);
        },
      };
    },
  };
}

/** Ends the owner's tunnels except those of the executions still to run or running (`keep`). */
export function closeTunnels(owner: TunnelOwner, keep: ReadonlySet<number> = new Set()): void {
  for (const [client, execution] of [...owner.tunnels]) {
    if (execution === undefined || !keep.has(execution)) client.destroy();
  }
}
