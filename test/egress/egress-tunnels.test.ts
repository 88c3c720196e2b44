// Egress tunnels held by runners: a per-account cap, an idle timeout, and closing when the
// execution that opened them (or the runner) ends. Tunnels reach a loopback echo server only.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildEgressProxy, type EgressGate, type EgressProxyOptions } from "../../src/egress/egress-proxy.js";
import { waitFor } from "../helpers/wait-for.js";

interface Tunnel {
  status: number;
  headers: string;
  socket: net.Socket;
  closed: Promise<void>;
}

/** CONNECT through `path`; resolves with the proxy's answer and the socket, still open on 200. */
function openTunnel(path: string, port: number, execution?: number): Promise<Tunnel> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(path);
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    let text = "";
    socket.on("error", () => {});
    socket.on("data", function onData(chunk) {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      resolve({ status: Number(text.split(" ")[1]), headers: text.slice(0, end).toLowerCase(), socket, closed });
    });
    socket.once("close", () => reject(new Error(`closed before an answer: ${text}`)));
    const header = execution === undefined ? "" : `x-sluice-execution: ${execution}\r\n`;
    socket.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${header}\r\n`);
  });
}

const echoes = (tunnel: Tunnel, text: string) =>
  new Promise<string>((resolve) => {
    tunnel.socket.once("data", (chunk) => resolve(chunk.toString()));
    tunnel.socket.write(text);
  });

describe("egress tunnels", () => {
  let dir: string;
  let echo: net.Server;
  let port = 0;
  const upstream = new Set<net.Socket>();
  const gates: EgressGate[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-tunnels-"));
    echo = net.createServer((socket) => {
      upstream.add(socket);
      socket.on("close", () => upstream.delete(socket));
      socket.on("error", () => {});
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    port = (echo.address() as AddressInfo).port;
  });
  after(async () => {
    await Promise.all(gates.map((gate) => gate.close()));
    for (const socket of upstream) socket.destroy();
    await new Promise<void>((resolve) => echo.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  function gate(options: Partial<EgressProxyOptions> = {}): EgressGate {
    // Loopback is private: allowed here so that tunnels reach the echo server on this machine.
    const built = buildEgressProxy({ doorsDir: dir, allowPrivateEgress: true, ...options });
    gates.push(built);
    return built;
  }

  it("caps the open tunnels of an account across its runners' doors; past it the CONNECT fails with a clear error", async () => {
    const proxy = gate({ maxTunnelsPerAccount: 2 });
    const first = proxy.openDoor("alice");
    const second = proxy.openDoor("alice");
    const other = proxy.openDoor("bob");
    const a = await openTunnel(first.path, port);
    const b = await openTunnel(second.path, port);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(proxy.tunnelCount("alice"), 2);
    const refused = await openTunnel(first.path, port);
    assert.equal(refused.status, 429);
    assert.match(refused.headers, /x-sluice-egress-error: egress_tunnel_limit/);
    assert.match(refused.headers, /x-sluice-tunnel-limit: 2/);
    // Another account is not held back by alice's tunnels.
    const c = await openTunnel(other.path, port);
    assert.equal(c.status, 200);
    assert.equal(await echoes(c, "bob"), "bob");
    // A closed tunnel gives its slot back.
    a.socket.destroy();
    await a.closed;
    await waitFor(() => proxy.tunnelCount("alice") === 1, { intervalMs: 0 });
    const again = await openTunnel(first.path, port);
    assert.equal(again.status, 200);
    for (const t of [b, c, again, refused]) t.socket.destroy();
  });

  it("a refused or failed CONNECT holds no slot", async () => {
    const proxy = gate({ maxTunnelsPerAccount: 1, allowPrivateEgress: false });
    const door = proxy.openDoor("carol");
    for (let i = 0; i < 3; i++) {
      const refused = await openTunnel(door.path, port);
      assert.equal(refused.status, 403);
      refused.socket.destroy();
    }
    assert.equal(proxy.tunnelCount("carol"), 0);
  });

  it("closes a tunnel idle both ways for the idle timeout, and not one in use", async () => {
    const proxy = gate({ tunnelIdleMs: 300 });
    const door = proxy.openDoor("dave");
    const idle = await openTunnel(door.path, port);
    const busy = await openTunnel(door.path, port);
    const started = Date.now();
    let busyAlive = true;
    busy.closed.then(() => (busyAlive = false));
    while (Date.now() - started < 900 && busyAlive) assert.equal(await echoes(busy, "x"), "x");
    await idle.closed;
    assert.equal(busyAlive, true, "the tunnel in use stays open");
    assert.ok(Date.now() - started >= 250);
    busy.socket.destroy();
  });

  it("closes the tunnels of an execution when it ends, keeping those of executions still queued, and all when the runner ends", async () => {
    const proxy = gate();
    const door = proxy.openDoor("erin");
    const ended = await openTunnel(door.path, port, 1);
    const unnamed = await openTunnel(door.path, port);
    const next = await openTunnel(door.path, port, 2);
    const forged = await openTunnel(door.path, port, 99);
    const upstreamBefore = upstream.size;
    door.endExecution(new Set([2]));
    await Promise.all([ended.closed, unnamed.closed, forged.closed]);
    assert.equal(await echoes(next, "still"), "still");
    await waitFor(() => upstream.size <= upstreamBefore - 3, { intervalMs: 0 });
    door.close();
    await next.closed;
    assert.equal(proxy.tunnelCount("erin"), 0);
  });
});
