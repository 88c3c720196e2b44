// The runner's end of its channel (runner/service-channel.ts): what the runner sends in one
// turn of its event loop reaches the service whole and in order, in one write, so a batch of
// executions run back to back costs the runner one system call instead of one per message.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { describe, it } from "node:test";

const channelModule = new URL("../../src/runner/service-channel.js", import.meta.url).href;

// Counts the writes on file descriptor 3, sends three messages in one turn, and reports the
// count two turns later (in a message of its own, written after the count was taken).
const RUNNER = `
import net from "node:net";
let writes = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (...args) {
  if (this._handle?.fd === 3) writes++;
  return write.apply(this, args);
};
const { openServiceChannel } = await import(${JSON.stringify(channelModule)});
const channel = openServiceChannel(() => {}, () => {});
for (const n of [1, 2, 3]) channel.send({ type: "event", id: n, event: { n } });
setImmediate(() => setImmediate(() => channel.send({ type: "writes", writes })));
`;

describe("the runner's channel to the service", () => {
  it("sends the messages of one turn in one write, whole and in order", async () => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", RUNNER], { stdio: ["ignore", "inherit", "inherit", "pipe"] });
    const messages: Array<Record<string, unknown>> = [];
    for await (const line of createInterface({ input: child.stdio[3] as Readable })) {
      messages.push(JSON.parse(line));
      if (messages.at(-1)!.type === "writes") break;
    }
    child.kill();
    assert.deepEqual(
      messages.slice(0, 3).map((m) => m.id),
      [1, 2, 3],
    );
    assert.deepEqual(messages[3], { type: "writes", writes: 1 });
  });
});
