// The SMTP transport runs in a thread of its own: connections are handled off the main thread,
// and the main thread's event loop (the API's, in a service) stays responsive while five
// clients send 3.9 MB messages at once — smtp-server's reading of every byte, which held it
// before, happens elsewhere. The replies themselves are the other tests' business.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { threadId } from "node:worker_threads";
import { pino } from "pino";
import { startSmtpListener, type SmtpListener } from "../../src/smtp-inbound/smtp-listener.js";
import { DIALECTS } from "../helpers/dialects.js";
import { SmtpDialog } from "../helpers/smtp-dialog.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { largeMultipartBody } from "../helpers/large-mail.js";

const DOMAIN = "mail.sluice.test";
const CLIENTS = 5;
// Storing an event is the main thread's work by design (a 2 MB one is tens of milliseconds of
// JSON and SQL): small events keep this test on the transport, the bytes of mail.
const MAX_EVENT = 64 * 1024;

/**
 * 3.9 MB messages: HTML beside a text part, and an attachment past what an event keeps. Their
 * body is one buffer for all, made once: little garbage is left for a collection to sweep on
 * this thread while it is watched.
 */
function largeMessages(to: string, count: number): { subjects: string[]; heads: Buffer[]; body: Buffer } {
  const body = Buffer.from(largeMultipartBody());
  const subjects = Array.from({ length: count }, (_, i) => `large ${i}`);
  const heads = subjects.map((subject) =>
    Buffer.from(
      [`From: sender@sender.test`, `To: ${to}`, `Subject: ${subject}`, `Content-Type: multipart/mixed; boundary=b`, "", ""].join("\r\n"),
    ),
  );
  return { subjects, heads, body };
}

/** Opens a connection and takes it to DATA's 354. */
async function openData(url: string, address: string): Promise<SmtpDialog> {
  const { dialog } = await SmtpDialog.open(url);
  await dialog.command("EHLO sender.test");
  await dialog.command("MAIL FROM:<sender@sender.test>");
  assert.match(await dialog.command(`RCPT TO:<${address}>`), /^250 /);
  assert.match(await dialog.command("DATA"), /^354 /);
  return dialog;
}

for (const dialect of DIALECTS) {
  describe(`the SMTP thread [${dialect}]`, () => {
    let app: TestApp;
    let listener: SmtpListener;
    const connectionsIn: number[] = [];
    before(async () => {
      app = await startTestApp(dialect, { emailDomain: DOMAIN, maxEventBytes: MAX_EVENT });
      const { config } = app;
      listener = await startSmtpListener(app.sluice.services, {
        host: "127.0.0.1",
        port: 0,
        name: DOMAIN,
        maxMessageBytes: config.smtpMaxMessageBytes,
        maxEventBytes: config.maxEventBytes,
        onConnection: (id) => connectionsIn.push(id),
        logger: pino({ level: "silent" }),
      });
    });
    after(async () => {
      await listener?.close();
      await app?.close();
    });

    it(`handles connections off the main thread, whose event loop stays responsive while ${CLIENTS} clients send 3.9 MB messages`, async () => {
      const account = await app.newAccount();
      const source = await createSource(account.api, { component_code: fixtureCode("email-new-email.mjs") });
      const address: string = source.configured_props.email.email_address;
      const dialogs = await Promise.all(Array.from({ length: CLIENTS }, () => openData(listener.url, address)));
      assert.equal(connectionsIn.length, CLIENTS);
      for (const id of connectionsIn) assert.notEqual(id, threadId, "a connection was handled on the main thread");
      // Made before the loop is watched: building them is this thread's own work. They have
      // CRLF line ends and no line that starts with a dot: nothing to stuff.
      const { subjects, heads, body } = largeMessages(address, CLIENTS);
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      try {
        const replies = await Promise.all(
          dialogs.map((dialog, i) => {
            dialog.writeBytes(heads[i]!);
            dialog.writeBytes(body);
            return dialog.endData();
          }),
        );
        delay.disable();
        for (const reply of replies) assert.match(reply, /^250 /);
        // The old listener read the bytes here: 5 × 3.9 MB held this loop far longer.
        const maxMs = delay.max / 1e6;
        assert.ok(maxMs < 200, `the main thread's event loop was held for ${Math.round(maxMs)} ms`);
      } finally {
        delay.disable();
        for (const dialog of dialogs) dialog.close();
      }
      const events = await waitForEvents(account.api, source.id, CLIENTS);
      assert.deepEqual(events.map((summary) => summary.event.subject).sort(), subjects);
    });
  });
}
