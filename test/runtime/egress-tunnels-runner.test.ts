// Egress tunnels of real runners (in the sandbox in force): a connection user code leaves open
// is closed when its execution ends, and past the account's cap connect fails with a clear
// error. Every connection goes to a loopback server of this test.
import assert from "node:assert/strict";
import net, { type AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";

const code = (body: string) =>
  `module.exports = { async run(event) { const { port } = event; const net = require("net"); try { this.$emit({ ok: await (async () => { ${body} })() }); } catch (e) { this.$emit({ code: String(e && e.code), message: String(e && e.message) }); } } };`;
const connect = `new Promise((ok, fail) => { const s = net.connect(port, "127.0.0.1"); s.on("connect", () => ok(s)).on("error", fail); })`;

describe("egress tunnels of runners", () => {
  let app: TestApp;
  let server: net.Server;
  let port = 0;
  const open = new Set<net.Socket>();
  let accepted = 0;

  before(async () => {
    server = net.createServer((socket) => {
      accepted++;
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    // Loopback is private: allowed so that user code reaches this test's server.
    app = await startTestApp("sqlite", { runTimeoutSeconds: 10, allowPrivateEgress: true, maxTunnelsPerAccount: 2 });
  });
  after(async () => {
    await app?.close();
    for (const socket of open) socket.destroy();
    server.close();
  });

  const run = async (userId: string, body: string) => {
    const result = await app.sluice.services.runner.execute({
      userId,
      code: code(body),
      entry: "run",
      event: { port },
      props: {},
      state: {},
      context: { sourceId: "dc_tunnels" },
    });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    return result.emits[0]?.event as { ok?: unknown; code?: string; message?: string };
  };

  it("a connection left open by user code closes when its execution ends", async () => {
    const before = accepted;
    // The socket is kept alive past the execution: a global holds it.
    assert.deepEqual(await run("u_tunnel_a", `globalThis.kept = await ${connect}; return "connected";`), { ok: "connected" });
    await waitFor(() => accepted === before + 1);
    await waitFor(() => open.size === 0);
  });

  it("past the account's cap of open tunnels, connect fails with EGRESS_TUNNEL_LIMIT and says why", async () => {
    const outcome = await run(
      "u_tunnel_b",
      `const a = await ${connect}; const b = await ${connect}; try { await ${connect}; return "third connected"; } finally { a.destroy(); b.destroy(); }`,
    );
    assert.equal(outcome.code, "EGRESS_TUNNEL_LIMIT");
    assert.match(outcome.message ?? "", /too many egress tunnels open for this account \(at most 2\)/);
    // The cap is the account's: another account still connects.
    assert.deepEqual(await run("u_tunnel_c", `const s = await ${connect}; s.destroy(); return "ok";`), { ok: "ok" });
  });
});
