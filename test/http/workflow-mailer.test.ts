// The mailer behind $.send.email and the global error workflow: SMTP when SLUICE_SMTP_URL is
// set (a local smtp-server on loopback), the service log otherwise.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { loadConfig } from "../../src/config.js";
import { createMailer } from "../../src/mail/create-mailer.js";
import { MailCatcher } from "../fixtures/workflows/smtp.js";

describe("mailer", () => {
  let smtp: MailCatcher;
  before(async () => {
    smtp = await new MailCatcher().start();
  });
  after(async () => smtp.close());

  it("sends over SMTP from SLUICE_SMTP_FROM when SLUICE_SMTP_URL is set", async () => {
    const config = loadConfig({ SLUICE_SMTP_URL: smtp.url, SLUICE_SMTP_FROM: "alerts@sluice.test" });
    const mailer = createMailer(config, pino({ level: "silent" }));
    await mailer.send({ to: "owner@example.test", subject: "Workflow failed", text: "details here" });
    await mailer.close();
    const [mail] = smtp.to("owner@example.test");
    assert.ok(mail);
    assert.equal(mail.from, "alerts@sluice.test");
    assert.match(mail.raw, /Subject: Workflow failed/);
    assert.match(mail.raw, /details here/);
  });

  it("logs the message when no SMTP server is configured", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const mailer = createMailer(loadConfig({}), pino({ level: "info" }, sink));
    await mailer.send({ to: "owner@example.test", subject: "Workflow failed", text: "the summary" });
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.mail);
    assert.ok(logged, "a log line carries the mail");
    assert.deepEqual(logged.mail, { to: "owner@example.test", subject: "Workflow failed", text: "the summary" });
    assert.match(logged.msg, /SLUICE_SMTP_URL is not set/);
  });
});
