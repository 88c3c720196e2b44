// /healthz while five clients send 9 MB messages to one e-mail source's address: how much the
// inbound SMTP listener holds up the API (ADR 0034). Sluice runs in its own process, as
// `npm start` runs it; this process sends the mail (a client per connection, each sending one
// message after another) and asks /healthz one request at a time, recording each latency.
// With the default SLUICE_SMTP_MAX_MESSAGE_BYTES (4 MB) a 9 MB message is refused (552)
// after it was read; BENCH_SMTP_MAX_MESSAGE_BYTES=10485760 makes it accepted, kept to
// SLUICE_MAX_EVENT_BYTES of body, parsed and stored. The per-client message limit is raised so
// that every message is sent (all come from 127.0.0.1).
import net from "node:net";
import { Worker } from "node:worker_threads";
import nodemailer from "nodemailer";
import { createAccount, call } from "./lib/api.js";
import { ascending, percentile } from "./lib/percentile.js";
import { BENCH_ADMIN_TOKEN, startSluiceServer } from "./lib/processes.js";
import { runDirectly } from "./lib/run-directly.js";

export interface InboundEmailReport {
  seconds: number;
  clients: number;
  messageBytes: number;
  maxMessageBytes: string;
  healthz: { requests: number; p50Ms: number; p99Ms: number; maxMs: number; over100Ms: number };
  messages: { accepted: number; refused: number; failed: number };
}

const DOMAIN = "bench.test";

/** Asks /healthz one request at a time until `end`, every 20 ms, and posts the latencies. */
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const latencies = [];
  while (Date.now() < workerData.end) {
    const started = performance.now();
    const response = await fetch(workerData.url);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  parentPort.postMessage(latencies);
})();
`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A 9 MB message: HTML beside a text part (converted to text), and an attachment. */
function bigMessage(to: string, bytes: number): string {
  const unit = '<p>Hello <b>there</b> <a href="https://example.test/x">link</a></p>\r\n';
  const html = unit.repeat(Math.floor(1_900_000 / unit.length));
  const attachment = Buffer.alloc(Math.floor(((bytes - html.length) * 3) / 4.1), 7)
    .toString("base64")
    .replace(/.{76}/g, "$&\r\n");
  return [
    `From: sender@sender.test`,
    `To: ${to}`,
    `Subject: large`,
    `Content-Type: multipart/mixed; boundary=b`,
    "",
    "--b",
    "Content-Type: text/plain",
    "",
    "a note",
    "--b",
    "Content-Type: text/html; charset=utf-8",
    "",
    html,
    "--b",
    "Content-Type: application/octet-stream",
    "Content-Transfer-Encoding: base64",
    "",
    attachment,
    "--b--",
    "",
  ].join("\r\n");
}

export async function runInboundEmailBench(
  options: { seconds?: number; clients?: number; messageBytes?: number; maxMessageBytes?: string; database?: string } = {},
): Promise<InboundEmailReport> {
  const seconds = options.seconds ?? Number(process.env.BENCH_SMTP_SECONDS ?? 20);
  const clients = options.clients ?? 5;
  const messageBytes = options.messageBytes ?? 9 * 1024 * 1024;
  const maxMessageBytes = options.maxMessageBytes ?? process.env.BENCH_SMTP_MAX_MESSAGE_BYTES ?? "";
  const port = await freePort();
  const sluice = await startSluiceServer({
    SLUICE_SMTP_INBOUND_PORT: String(port),
    SLUICE_EMAIL_DOMAIN: DOMAIN,
    SLUICE_SMTP_MAX_MESSAGES_PER_CLIENT_MINUTE: "100000",
    ...(maxMessageBytes ? { SLUICE_SMTP_MAX_MESSAGE_BYTES: maxMessageBytes } : {}),
    ...(options.database ? { DATABASE_URL: options.database } : {}),
  });
  try {
    const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, "smtpbench");
    const source = await call(sluice.url, "POST", "/sources", {
      key,
      json: {
        component_code: `export default { name: "inbox", version: "0.0.1", props: { email: { type: "app", app: "email" } }, async run() {} };`,
      },
    });
    const address: string = source.data.configured_props.email.email_address;
    const raw = bigMessage(address, messageBytes);
    const messages = { accepted: 0, refused: 0, failed: 0 };
    const end = Date.now() + seconds * 1000;
    const senders = Array.from({ length: clients }, async () => {
      const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, pool: false });
      while (Date.now() < end) {
        try {
          await transport.sendMail({ envelope: { from: "sender@sender.test", to: [address] }, raw });
          messages.accepted++;
        } catch (error) {
          if (typeof (error as { responseCode?: number }).responseCode === "number") messages.refused++;
          else messages.failed++;
        }
      }
      transport.close();
    });
    // /healthz is asked from a thread of its own: the senders' work (nodemailer dot-stuffs 9 MB
    // messages in JavaScript) would otherwise delay the prober's own event loop and be counted
    // as the service's latency.
    const probe = new Promise<number[]>((resolve, reject) => {
      const thread = new Worker(PROBE, { eval: true, workerData: { url: `${sluice.url}/healthz`, end } });
      thread.once("message", resolve);
      thread.once("error", reject);
    });
    const [latencies] = await Promise.all([probe, ...senders]);
    const sorted = ascending(latencies);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      seconds,
      clients,
      messageBytes,
      maxMessageBytes: maxMessageBytes || "default",
      healthz: {
        requests: sorted.length,
        p50Ms: round(percentile(sorted, 50)),
        p99Ms: round(percentile(sorted, 99)),
        maxMs: round(sorted[sorted.length - 1] ?? NaN),
        over100Ms: sorted.filter((ms) => ms > 100).length,
      },
      messages,
    };
  } finally {
    await sluice.stop();
  }
}

runDirectly(import.meta.url, runInboundEmailBench);
