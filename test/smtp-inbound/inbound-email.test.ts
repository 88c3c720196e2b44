// Inbound e-mail for e-mail sources, over SMTP on loopback: the address in configured_props, a
// message becoming the source's event (Pipedream's field names, attachments as metadata), refusals
// at RCPT (unknown address, another domain, inactive source, full account), the size limit,
// several recipients, and 451 with nothing stored when storing fails; with the default sizes,
// a large message parsed off the event loop and stored cut.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { threadId } from "node:worker_threads";
import { sql } from "kysely";
import nodemailer from "nodemailer";
import { pino } from "pino";
import { startSmtpListener } from "../../src/smtp-inbound/smtp-listener.js";
import { DIALECTS } from "../helpers/dialects.js";
import { SmtpDialog } from "../helpers/smtp-dialog.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { largeMultipartBody } from "../helpers/large-mail.js";

const DOMAIN = "mail.sluice.test";
const MAX_MESSAGE = 64 * 1024;
const MAX_EVENT = 16 * 1024;

const emailSource = (account: Account, name?: string) =>
  createSource(account.api, { component_code: fixtureCode("email-new-email.mjs"), ...(name ? { name } : {}) });
const addressOf = (source: any): string => source.configured_props.email.email_address;

/** A minimal message, as a sender writes it after DATA. */
const rawMessage = (
  to: string,
  subject: string,
  body: string,
  messageId = `<${subject.replace(/\W/g, "")}.${Math.random()}@sender.test>`,
) =>
  [
    `From: Sender <sender@sender.test>`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: ${messageId}`,
    `Date: Tue, 02 Jan 2024 03:04:05 +0000`,
    "",
    body,
    "",
  ].join("\r\n");

async function sendRaw(url: string, to: string[], message: string): Promise<{ rcpt: string[]; data: string | undefined }> {
  const { dialog } = await SmtpDialog.open(url);
  try {
    await dialog.command("EHLO sender.test");
    await dialog.command("MAIL FROM:<sender@sender.test>");
    const rcpt: string[] = [];
    for (const address of to) rcpt.push(await dialog.command(`RCPT TO:<${address}>`));
    const data = rcpt.some((reply) => reply.startsWith("250")) ? await dialog.data(message) : undefined;
    await dialog.command("QUIT").catch(() => undefined);
    return { rcpt, data };
  } finally {
    dialog.close();
  }
}

for (const dialect of DIALECTS) {
  describe(`inbound e-mail [${dialect}]`, () => {
    let app: TestApp;
    let smtpUrl: string;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect, {
        smtpInboundPort: 0,
        emailDomain: DOMAIN,
        smtpMaxMessageBytes: MAX_MESSAGE,
        maxEventBytes: MAX_EVENT,
      });
      smtpUrl = app.sluice.smtpUrl ?? "";
      assert.match(smtpUrl, /^smtp:\/\/127\.0\.0\.1:\d+$/);
      account = await app.newAccount();
    });
    after(async () => app?.close());

    it("an e-mail source shows {email_address: <key>@<domain>} under its prop, in GET, the list and after an update", async () => {
      const source = await emailSource(account, "inbox");
      const address = addressOf(source);
      assert.match(address, new RegExp(`^[a-z0-9]{24}@${DOMAIN.replace(/\./g, "\\.")}$`));
      assert.deepEqual(source.configured_props, { email: { email_address: address } });
      const got = await account.api.get(`/sources/${source.id}`);
      assert.deepEqual(got.body.data.configured_props, { email: { email_address: address } });
      const listed = await account.api.get("/users/me/sources", { limit: 100 });
      assert.deepEqual(listed.body.data.find((s: any) => s.id === source.id).configured_props, { email: { email_address: address } });
      // Sending back what GET showed is accepted and changes nothing: the address is the service's.
      const updated = await account.api.put(`/sources/${source.id}`, {
        component_code: fixtureCode("email-new-email.mjs"),
        configured_props: { email: { email_address: "chosen@elsewhere.test" } },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.body.data.configured_props, { email: { email_address: address } });
      const other = await emailSource(account);
      assert.notEqual(addressOf(other), address, "every source has its own address");
    });

    it("a message with text, HTML and an attachment becomes the source's event, with Pipedream's field names and the attachment as metadata", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const attachment = "name,count\nwidgets,3\n";
      const transport = nodemailer.createTransport(smtpUrl);
      const info = await transport.sendMail({
        from: "Alice Example <alice@sender.test>",
        to: `Inbox <${address}>`,
        cc: "carol@sender.test",
        subject: "Quarterly report",
        text: "Numbers attached. See https://example.test/q",
        html: "<p>Numbers <b>attached</b>.</p>",
        attachments: [{ filename: "report.csv", content: attachment, contentType: "text/csv" }],
        headers: { "X-Campaign": "q3" },
      });
      transport.close();
      assert.deepEqual(info.accepted, [address]);
      assert.match(info.response, /^250 /);

      const [summary] = await waitForEvents(account.api, source.id, 1);
      const event = summary.event;
      assert.equal(event.subject, "Quarterly report");
      assert.deepEqual(event.from.value, [{ address: "alice@sender.test", name: "Alice Example" }]);
      assert.equal(event.from.text, '"Alice Example" <alice@sender.test>');
      assert.deepEqual(event.to.value, [{ address, name: "Inbox" }]);
      assert.deepEqual(event.cc.value, [{ address: "carol@sender.test", name: "" }]);
      assert.equal(event.text.trim(), "Numbers attached. See https://example.test/q");
      assert.equal(event.html, "<p>Numbers <b>attached</b>.</p>");
      assert.match(event.textAsHtml, /<a href="https:\/\/example\.test\/q">/);
      assert.equal(event.messageId, info.messageId);
      assert.match(event.date, /^\d{4}-\d{2}-\d{2}T/);
      assert.equal(event.headers.subject, "Quarterly report");
      assert.equal(event.headers["x-campaign"], "q3");
      assert.equal(event.headers["content-type"].value, "multipart/mixed");
      assert.equal(event.attachments.length, 1);
      const [file] = event.attachments;
      assert.equal(file.filename, "report.csv");
      assert.equal(file.contentType, "text/csv");
      assert.equal(file.contentDisposition, "attachment");
      assert.equal(file.size, Buffer.byteLength(attachment));
      assert.equal(file.checksum, createHash("md5").update(attachment).digest("hex"));
      assert.equal("content" in file, false, "attachments are metadata, never content");
      assert.equal(event.mail.source, "alice@sender.test");
      assert.deepEqual(event.mail.destination, [address]);
      assert.ok(Math.abs(Date.parse(event.mail.timestamp) - Date.now()) < 60_000);
      assert.equal(event.truncated, undefined);
      assert.equal(summary.metadata.summary, "Quarterly report");
      assert.equal(summary.metadata.id, info.messageId);
      assert.equal(summary.metadata.emitter_id, source.id);
      assert.equal(summary.metadata.name, "");
      // The service emitted it: no run, so nothing on $logs or $errors.
      assert.deepEqual(await summaries(account.api, source.id, { event_name: "$errors" }), []);
    });

    it("an e-mail source may leave run() out", async () => {
      const source = await createSource(account.api, {
        component_code: `export default { name: "bare inbox", version: "0.0.1", props: { email: { type: "app", app: "email" } } };`,
      });
      const sent = await sendRaw(smtpUrl, [addressOf(source)], rawMessage(addressOf(source), "no run", "still stored"));
      assert.match(sent.data ?? "", /^250 /);
      const [summary] = await waitForEvents(account.api, source.id, 1);
      assert.equal(summary.event.subject, "no run");
      // Any other component still needs run().
      const refused = await account.api.post("/sources", {
        component_code: `export default { name: "no run", version: "0.0.1", props: { demo: { type: "app", app: "demo" } } };`,
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /no run\(\) method/);
    });

    it("EHLO advertises SIZE and neither AUTH nor STARTTLS; unknown addresses, other domains and inactive sources get 550 at RCPT", async () => {
      const inactive = await emailSource(account);
      assert.equal(
        (await account.api.put(`/sources/${inactive.id}`, { component_code: fixtureCode("email-new-email.mjs"), active: false })).status,
        200,
      );
      const known = await emailSource(account);
      const { dialog, greeting } = await SmtpDialog.open(smtpUrl);
      try {
        assert.match(greeting, new RegExp(`^220 ${DOMAIN.replace(/\./g, "\\.")} `));
        const ehlo = await dialog.command("EHLO sender.test");
        assert.match(ehlo, new RegExp(`^250[- ]SIZE ${MAX_MESSAGE}$`, "m"));
        assert.doesNotMatch(ehlo, /AUTH|STARTTLS/);
        assert.match(await dialog.command("AUTH PLAIN AGFsaWNlAHNlY3JldA=="), /^5\d\d /);
        assert.match(await dialog.command("STARTTLS"), /^5\d\d /);
        assert.match(await dialog.command("MAIL FROM:<sender@sender.test>"), /^250 /);
        const key = addressOf(known).split("@")[0]!;
        for (const address of [`${"x".repeat(24)}@${DOMAIN}`, `${key}@other.test`, `${key}.extra@${DOMAIN}`, addressOf(inactive)]) {
          assert.match(await dialog.command(`RCPT TO:<${address}>`), /^550 5\.1\.1 no such mailbox$/, address);
        }
        // The local part is matched whatever its case.
        assert.match(await dialog.command(`RCPT TO:<${key.toUpperCase()}@${DOMAIN.toUpperCase()}>`), /^250 /);
      } finally {
        dialog.close();
      }
      // nodemailer sees the same refusal.
      const transport = nodemailer.createTransport(smtpUrl);
      await assert.rejects(
        transport.sendMail({ from: "a@sender.test", to: `nobody@${DOMAIN}`, subject: "x", text: "x" }),
        (error: any) => error.code === "EENVELOPE" && error.responseCode === 550,
      );
      transport.close();
      assert.deepEqual(await summaries(account.api, inactive.id), []);
    });

    it("an oversized message is refused once it passes the limit, without reading the rest: 552, and the connection closes", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const { dialog } = await SmtpDialog.open(smtpUrl);
      try {
        await dialog.command("EHLO sender.test");
        assert.match(await dialog.command("MAIL FROM:<sender@sender.test>"), /^250 /);
        assert.match(await dialog.command(`RCPT TO:<${address}>`), /^250 /);
        assert.match(await dialog.command("DATA"), /^354 /);
        const refused = dialog.nextReply();
        // Twice the limit, and never the final dot: only a refusal in the middle of DATA answers.
        dialog.writeBytes(Buffer.from(`Subject: big\r\n\r\n${`${"y".repeat(78)}\r\n`.repeat(Math.ceil((2 * MAX_MESSAGE) / 80))}`));
        const deadline = new Promise<string>((_, reject) =>
          setTimeout(() => reject(new Error("no reply before the message ended")), 15_000).unref(),
        );
        assert.match(await Promise.race([refused, deadline]), /^552 .*maximum message size/);
        await dialog.ended;
      } finally {
        dialog.close();
      }
      assert.deepEqual(await summaries(account.api, source.id), []);
    });

    it("a message over SLUICE_SMTP_MAX_MESSAGE_BYTES is refused with 552, at MAIL FROM when SIZE= says so, and nothing is stored", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const { dialog } = await SmtpDialog.open(smtpUrl);
      try {
        await dialog.command("EHLO sender.test");
        assert.match(await dialog.command(`MAIL FROM:<sender@sender.test> SIZE=${MAX_MESSAGE + 1}`), /^552 .*maximum message size/);
      } finally {
        dialog.close();
      }
      const big = await sendRaw(smtpUrl, [address], rawMessage(address, "too big", "y".repeat(MAX_MESSAGE + 10)));
      assert.match(big.rcpt[0]!, /^250 /);
      assert.match(big.data ?? "", /^552 .*maximum message size/);
      // Within the size, but its headers alone make an event over SLUICE_MAX_EVENT_BYTES.
      const headers = Array.from({ length: 30 }, (_, i) => `X-Pad-${i}: ${"p".repeat(900)}`).join("\r\n");
      const padded = await sendRaw(smtpUrl, [address], `${headers}\r\n${rawMessage(address, "padded", "body")}`);
      assert.match(padded.data ?? "", /^552 5\.3\.4 .*SLUICE_MAX_EVENT_BYTES \(16384\)/);
      // More MIME parts than the parser takes: a message it cannot read is refused for good.
      const parts = Array.from({ length: 1100 }, () => "--b\r\n\r\nx").join("\r\n");
      const unreadable = await sendRaw(
        smtpUrl,
        [address],
        `Subject: parts\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n${parts}\r\n--b--\r\n`,
      );
      assert.match(unreadable.data ?? "", /^554 5\.6\.0 the message could not be parsed/);
      const ok = await sendRaw(smtpUrl, [address], rawMessage(address, "small enough", "fits"));
      assert.match(ok.data ?? "", /^250 /);
      const events = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(
        events.map((s) => s.event.subject),
        ["small enough"],
      );
    });

    it("bodies beyond SLUICE_MAX_EVENT_BYTES are cut (the message past twice the limit, then textAsHtml, then html), and the event says so", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const transport = nodemailer.createTransport(smtpUrl);
      await transport.sendMail({
        from: "a@sender.test",
        to: address,
        subject: "long",
        text: "t".repeat(6_000),
        html: `<p>${"h".repeat(30_000)}</p>`,
      });
      transport.close();
      const [summary] = await waitForEvents(account.api, source.id, 1);
      const event = summary.event;
      assert.deepEqual(event.truncated, ["message", "textAsHtml", "html"]);
      assert.equal(event.textAsHtml, undefined);
      assert.equal(event.text.trim(), "t".repeat(6_000), "the text fitted once the HTML was cut");
      assert.ok(event.html.startsWith("<p>hhh") && event.html.length < 30_000);
      assert.ok(Buffer.byteLength(JSON.stringify(event)) <= MAX_EVENT);
    });

    it("a message over SLUICE_MAX_EVENT_BYTES but within the SMTP limit is stored cut, within the event limit, and says so", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const text = "the text comes first and fits whole";
      const attachment = Buffer.alloc(40_000, 1).toString("base64").replace(/.{76}/g, "$&\r\n");
      const message = [
        `From: sender@sender.test`,
        `To: ${address}`,
        `Subject: cut`,
        `Message-ID: <cut@sender.test>`,
        `Content-Type: multipart/mixed; boundary=b`,
        "",
        "--b",
        "Content-Type: text/plain",
        "",
        text,
        "--b",
        "Content-Type: application/octet-stream; name=big.bin",
        "Content-Disposition: attachment; filename=big.bin",
        "Content-Transfer-Encoding: base64",
        "",
        attachment,
        "--b",
        "Content-Type: application/octet-stream; name=after.bin",
        "Content-Disposition: attachment; filename=after.bin",
        "",
        "past the cut",
        "--b--",
        "",
      ].join("\r\n");
      assert.ok(message.length > MAX_EVENT * 2 && message.length < MAX_MESSAGE, `${message.length} bytes`);
      const sent = await sendRaw(smtpUrl, [address], message);
      assert.match(sent.data ?? "", /^250 /);
      const [summary] = await waitForEvents(account.api, source.id, 1);
      const event = summary.event;
      assert.deepEqual(event.truncated, ["message"], "only the message was cut: the event itself fitted");
      assert.equal(event.text.trim(), text);
      assert.equal(event.subject, "cut");
      assert.deepEqual(
        event.attachments.map((a: any) => a.filename),
        ["big.bin"],
        "the part past the cut is missing",
      );
      assert.ok(event.attachments[0].size < 40_000, "the cut attachment is not whole");
      assert.ok(Buffer.byteLength(JSON.stringify(event)) <= MAX_EVENT);
    });

    it("one message to several sources becomes one event per source, each seeing only its own address; a second account's address reaches only its source", async () => {
      const other = await app.newAccount();
      const mine = await emailSource(account);
      const untouched = await emailSource(account);
      const theirs = await emailSource(other);
      const [a, b] = [addressOf(mine), addressOf(theirs)];
      const sent = await sendRaw(smtpUrl, [a, a.toUpperCase(), b, `unknown@${DOMAIN}`], rawMessage(`${a}, ${b}`, "to both", "hello both"));
      assert.deepEqual(
        sent.rcpt.map((reply) => reply.slice(0, 3)),
        ["250", "250", "250", "550"],
      );
      assert.match(sent.data ?? "", /^250 /);
      const [forMine] = await waitForEvents(account.api, mine.id, 1);
      const [forTheirs] = await waitForEvents(other.api, theirs.id, 1);
      assert.equal(forMine.event.subject, "to both");
      assert.equal(forTheirs.event.subject, "to both");
      assert.equal(forMine.event.mail.destination.length, 1, "the same address in another case is one recipient");
      assert.equal(forMine.event.mail.destination[0].toLowerCase(), a);
      assert.deepEqual(forTheirs.event.mail.destination, [b]);
      assert.deepEqual(await summaries(account.api, untouched.id), []);
      // Each account sees only its own source.
      assert.equal((await other.api.get(`/sources/${mine.id}/event_summaries`)).status, 404);
      assert.equal((await account.api.get(`/sources/${theirs.id}/event_summaries`)).status, 404);
    });

    it("an account over its storage quota gets 452 at RCPT naming the quota; other accounts' sources still receive", async () => {
      const full = await app.newAccount();
      const source = await emailSource(full);
      const fine = await emailSource(account);
      // The account's stored bytes, as the storage triggers keep them, at the quota.
      await app.sluice.services.store.db
        .insertInto("emitter_storage")
        .values({ emitter_id: "dc_filler", user_id: full.id, bytes: app.config.accountStorageBytes })
        .execute();
      const sent = await sendRaw(smtpUrl, [addressOf(source), addressOf(fine)], rawMessage(addressOf(fine), "quota", "room?"));
      assert.match(sent.rcpt[0]!, /^452 4\.2\.2 .*storage quota .*SLUICE_ACCOUNT_STORAGE_MB/);
      assert.match(sent.rcpt[1]!, /^250 /);
      assert.match(sent.data ?? "", /^250 /);
      await waitForEvents(account.api, fine.id, 1);
      assert.deepEqual(await summaries(full.api, source.id), []);
    });

    it("a message past the few held at once gets 451 and is stored once the sender retries", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const listener = await startSmtpListener(app.sluice.services, {
        host: "127.0.0.1",
        port: 0,
        name: DOMAIN,
        maxMessageBytes: MAX_MESSAGE,
        maxEventBytes: MAX_EVENT,
        maxMessagesInFlight: 1,
        logger: pino({ level: "silent" }),
      });
      const open = async () => {
        const { dialog } = await SmtpDialog.open(listener.url);
        await dialog.command("EHLO sender.test");
        await dialog.command("MAIL FROM:<sender@sender.test>");
        assert.match(await dialog.command(`RCPT TO:<${address}>`), /^250 /);
        assert.match(await dialog.command("DATA"), /^354 /);
        return dialog;
      };
      const first = await open();
      const second = await open();
      try {
        first.write(rawMessage(address, "first", "held while the second arrives"));
        second.write(rawMessage(address, "second", "one too many"));
        assert.match(await second.endData(), /^451 4\.3\.2 too many messages at once/);
        assert.match(await first.endData(), /^250 /);
        // A refused message ends its transaction: the sender starts it again.
        await second.command("MAIL FROM:<sender@sender.test>");
        assert.match(await second.command(`RCPT TO:<${address}>`), /^250 /);
        assert.match(await second.data(rawMessage(address, "second", "retried")), /^250 /);
      } finally {
        first.close();
        second.close();
        await listener.close();
      }
      const events = await waitForEvents(account.api, source.id, 2);
      assert.deepEqual(events.map((s) => s.event.subject).sort(), ["first", "second"]);
    });

    it("when storing fails the message gets 451 and nothing is stored; the sender's retry is stored", async () => {
      const source = await emailSource(account);
      const address = addressOf(source);
      const db = app.sluice.services.store.db;
      const message = rawMessage(address, "retried", "second time lucky", "<retried@sender.test>");
      if (dialect === "sqlite") {
        await sql`create trigger refuse_events before insert on events begin select raise(abort, 'disk on fire'); end`.execute(db);
      } else {
        await sql`create function refuse_events() returns trigger language plpgsql as $$ begin raise exception 'disk on fire'; end $$`.execute(
          db,
        );
        await sql`create trigger refuse_events before insert on events for each row execute function refuse_events()`.execute(db);
      }
      try {
        const failed = await sendRaw(smtpUrl, [address], message);
        assert.match(failed.data ?? "", /^451 4\.3\.0 temporary failure/);
        assert.doesNotMatch(failed.data ?? "", /disk on fire/, "the cause stays in the log");
      } finally {
        if (dialect === "sqlite") await sql`drop trigger refuse_events`.execute(db);
        else {
          await sql`drop trigger refuse_events on events`.execute(db);
          await sql`drop function refuse_events()`.execute(db);
        }
      }
      assert.deepEqual(await summaries(account.api, source.id), []);
      const retried = await sendRaw(smtpUrl, [address], message);
      assert.match(retried.data ?? "", /^250 /);
      const [summary] = await waitForEvents(account.api, source.id, 1);
      assert.equal(summary.event.subject, "retried");
      assert.equal(summary.metadata.id, "<retried@sender.test>");
    });
  });

  describe(`inbound e-mail with the default sizes [${dialect}]`, () => {
    it("a 3.9 MB message is parsed in a worker thread: the event loop never stalls for a second, and the event is stored cut to SLUICE_MAX_EVENT_BYTES", async () => {
      const app = await startTestApp(dialect, { emailDomain: DOMAIN });
      const parsedIn: number[] = [];
      const { config } = app;
      assert.equal(config.smtpMaxMessageBytes, 4 * 1024 * 1024);
      const listener = await startSmtpListener(app.sluice.services, {
        host: "127.0.0.1",
        port: 0,
        name: DOMAIN,
        maxMessageBytes: config.smtpMaxMessageBytes,
        maxEventBytes: config.maxEventBytes,
        parser: { onParsed: (id) => parsedIn.push(id) },
        logger: pino({ level: "silent" }),
      });
      // The longest time between two turns of a 10 ms timer: how long the loop was held.
      let worstGapMs = 0;
      let last = performance.now();
      const watch = setInterval(() => {
        const now = performance.now();
        worstGapMs = Math.max(worstGapMs, now - last);
        last = now;
      }, 10);
      try {
        const account = await app.newAccount();
        const source = await emailSource(account);
        const address = addressOf(source);
        const message = [
          `From: sender@sender.test`,
          `To: ${address}`,
          `Subject: large`,
          `Content-Type: multipart/mixed; boundary=b`,
          "",
          largeMultipartBody(),
        ].join("\r\n");
        assert.ok(message.length > 3_800_000 && message.length < config.smtpMaxMessageBytes, `${message.length} bytes`);
        last = performance.now();
        worstGapMs = 0;
        const sent = await sendRaw(listener.url, [address], message);
        assert.match(sent.data ?? "", /^250 /);
        assert.ok(worstGapMs < 1000, `the event loop was held for ${Math.round(worstGapMs)} ms`);
        assert.equal(parsedIn.length, 1);
        assert.notEqual(parsedIn[0], threadId, "parsed in a worker thread");
        const [summary] = await waitForEvents(account.api, source.id, 1);
        assert.equal(summary.event.subject, "large");
        assert.equal(summary.event.truncated[0], "message");
        assert.ok(summary.event.text.includes("Hello there"));
        assert.ok(Buffer.byteLength(JSON.stringify(summary.event)) <= config.maxEventBytes);
      } finally {
        clearInterval(watch);
        await listener.close();
        await app.close();
      }
    });
  });

  describe(`inbound e-mail listener off [${dialect}]`, () => {
    it("without SLUICE_SMTP_INBOUND_PORT nothing listens, yet sources show their address; a process without the api role never listens", async () => {
      const app = await startTestApp(dialect, { emailDomain: DOMAIN });
      try {
        assert.equal(app.config.smtpInboundPort, undefined);
        assert.equal(app.sluice.smtpUrl, undefined);
        const account = await app.newAccount();
        const source = await emailSource(account);
        assert.match(addressOf(source), new RegExp(`@${DOMAIN.replace(/\./g, "\\.")}$`));
      } finally {
        await app.close();
      }
      const port = await freePort();
      const worker = await startTestApp(dialect, { smtpInboundPort: port, emailDomain: DOMAIN }, { roles: ["worker"] });
      try {
        assert.equal(worker.sluice.smtpUrl, undefined);
        await assert.rejects(connect(port), (error: any) => error.code === "ECONNREFUSED");
      } finally {
        await worker.close();
      }
    });
  });
}

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

function connect(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", reject);
  });
}
