// Runners have the global WebSocket of the Node version Pipedream runs (Node 22 has it; Node 20
// behind --experimental-websocket), with and without the OS sandbox: a component talks to a
// loopback WebSocket server through the egress proxy, in both directions.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createComponentRunner, type ComponentRunner } from "../../src/runtime/component-runner.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";
import { SANDBOX_MODES } from "../helpers/sandbox-modes.js";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** One unmasked text frame (payloads under 126 bytes), as a server sends it. */
const textFrame = (text: string) => Buffer.concat([Buffer.from([0x81, Buffer.byteLength(text)]), Buffer.from(text)]);

/** The text of a client's masked frame (payloads under 126 bytes), or undefined for another opcode. */
function clientText(frame: Buffer): string | undefined {
  if ((frame[0]! & 0x0f) !== 1) return undefined;
  const length = frame[1]! & 0x7f;
  const mask = frame.subarray(2, 6);
  const payload = Buffer.from(frame.subarray(6, 6 + length));
  for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!;
  return payload.toString("utf8");
}

/** A WebSocket server of the fewest parts: greets with the path, answers each text message with "echo:<text>". */
function startWebSocketServer(): Promise<Server> {
  const server = createServer((_req, res) => res.writeHead(426).end());
  server.on("upgrade", (req, socket: Socket) => {
    const accept = createHash("sha1").update(`${req.headers["sec-websocket-key"]}${GUID}`).digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.write(textFrame(`hello ${req.url}`));
    socket.on("data", (frame: Buffer) => {
      const text = clientText(frame);
      if (text !== undefined) socket.write(textFrame(`echo:${text}`));
      else socket.end(Buffer.from([0x88, 0]));
    });
    socket.on("error", () => undefined);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const CLIENT = `export default {
  async run(event) {
    const seen = [typeof WebSocket];
    await new Promise((resolve, reject) => {
      const ws = new WebSocket(event.url);
      ws.onmessage = (message) => {
        seen.push(String(message.data));
        if (seen.length === 2) ws.send("ping");
        else { ws.close(); resolve(); }
      };
      ws.onerror = () => reject(new Error("the WebSocket failed"));
    });
    this.$emit(seen);
  },
};`;

for (const { mode, skip } of SANDBOX_MODES) {
  describe(`WebSocket in a runner [sandbox ${mode}]`, { skip }, () => {
    let dataDir: string;
    let runner: ComponentRunner;
    let server: Server;
    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "sluice-websocket-"));
      runner = createComponentRunner(testRunnerSettings(dataDir, { runTimeoutSeconds: 10, allowPrivateEgress: true }, mode));
      server = await startWebSocketServer();
    });
    after(async () => {
      await runner.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("user code has a global WebSocket that reaches a loopback server through the egress proxy", async () => {
      const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/realtime`;
      const result = await runner.execute({
        userId: "u_ws",
        code: CLIENT,
        entry: "run",
        event: { url },
        props: {},
        state: {},
        context: { sourceId: "dc_ws" },
        timeoutMs: 10_000,
      });
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      assert.deepEqual(result.emits[0]?.event, ["function", "hello /realtime", "echo:ping"]);
    });
  });
}
