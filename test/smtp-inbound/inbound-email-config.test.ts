// The settings of inbound e-mail: the listener's port (off when unset), the address domain
// (the public URL's host by default), the message size limit, the per-client limits and
// STARTTLS's certificate.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";

describe("inbound e-mail settings", () => {
  it("the listener is off unless SLUICE_SMTP_INBOUND_PORT is set; a port is 0..65535", () => {
    assert.equal(loadConfig({}).smtpInboundPort, undefined);
    assert.equal(loadConfig({ SLUICE_SMTP_INBOUND_PORT: "" }).smtpInboundPort, undefined);
    assert.equal(loadConfig({ SLUICE_SMTP_INBOUND_PORT: "2525" }).smtpInboundPort, 2525);
    assert.equal(loadConfig({ SLUICE_SMTP_INBOUND_PORT: "0" }).smtpInboundPort, 0);
    for (const bad of ["65536", "-1", "25.5", "smtp"]) {
      assert.throws(
        () => loadConfig({ SLUICE_SMTP_INBOUND_PORT: bad }),
        (error: Error) =>
          error instanceof ConfigError && /SLUICE_SMTP_INBOUND_PORT must be a port number from 0 to 65535/.test(error.message),
        bad,
      );
    }
  });

  it("SLUICE_EMAIL_DOMAIN defaults to the host of SLUICE_PUBLIC_URL, is lower-cased, and must be a domain", () => {
    assert.equal(loadConfig({}).emailDomain, "127.0.0.1");
    assert.equal(loadConfig({ SLUICE_PUBLIC_URL: "https://Sluice.Example.com:8443/base" }).emailDomain, "sluice.example.com");
    assert.equal(
      loadConfig({ SLUICE_PUBLIC_URL: "https://sluice.example.com", SLUICE_EMAIL_DOMAIN: "In.Example.COM" }).emailDomain,
      "in.example.com",
    );
    for (const bad of ["user@example.com", "exa mple.com", "-bad.example.com", "example..com"]) {
      assert.throws(
        () => loadConfig({ SLUICE_EMAIL_DOMAIN: bad }),
        (error: Error) => error instanceof ConfigError && /SLUICE_EMAIL_DOMAIN must be a domain name/.test(error.message),
        bad,
      );
    }
    assert.throws(
      () => loadConfig({ SLUICE_PUBLIC_URL: "not a url" }),
      (error: Error) => error instanceof ConfigError && /SLUICE_PUBLIC_URL must be an absolute URL/.test(error.message),
    );
  });

  it("SLUICE_SMTP_MAX_MESSAGE_BYTES is 4 MB by default and at least 1024", () => {
    assert.equal(loadConfig({}).smtpMaxMessageBytes, 4 * 1024 * 1024);
    assert.equal(loadConfig({ SLUICE_SMTP_MAX_MESSAGE_BYTES: "30000000" }).smtpMaxMessageBytes, 30_000_000);
    assert.throws(() => loadConfig({ SLUICE_SMTP_MAX_MESSAGE_BYTES: "100" }), /SLUICE_SMTP_MAX_MESSAGE_BYTES must be an integer >= 1024/);
  });

  it("per client address at most 5 connections and 60 messages a minute by default, each at least 1", () => {
    assert.equal(loadConfig({}).smtpMaxConnectionsPerClient, 5);
    assert.equal(loadConfig({}).smtpMaxMessagesPerClientMinute, 60);
    assert.equal(
      loadConfig({ SLUICE_SMTP_MAX_CONNECTIONS_PER_CLIENT: "20", SLUICE_SMTP_MAX_MESSAGES_PER_CLIENT_MINUTE: "600" })
        .smtpMaxConnectionsPerClient,
      20,
    );
    assert.equal(loadConfig({ SLUICE_SMTP_MAX_MESSAGES_PER_CLIENT_MINUTE: "600" }).smtpMaxMessagesPerClientMinute, 600);
    assert.throws(
      () => loadConfig({ SLUICE_SMTP_MAX_CONNECTIONS_PER_CLIENT: "0" }),
      /SLUICE_SMTP_MAX_CONNECTIONS_PER_CLIENT must be an integer >= 1/,
    );
    assert.throws(
      () => loadConfig({ SLUICE_SMTP_MAX_MESSAGES_PER_CLIENT_MINUTE: "many" }),
      /SLUICE_SMTP_MAX_MESSAGES_PER_CLIENT_MINUTE must be an integer >= 1/,
    );
  });

  it("STARTTLS takes a certificate and its key together", () => {
    const config = loadConfig({ SLUICE_SMTP_TLS_CERT_FILE: "/etc/sluice/smtp.crt", SLUICE_SMTP_TLS_KEY_FILE: "/etc/sluice/smtp.key" });
    assert.deepEqual([config.smtpTlsCertFile, config.smtpTlsKeyFile], ["/etc/sluice/smtp.crt", "/etc/sluice/smtp.key"]);
    assert.deepEqual([loadConfig({}).smtpTlsCertFile, loadConfig({}).smtpTlsKeyFile], [undefined, undefined]);
    assert.throws(
      () => loadConfig({ SLUICE_SMTP_TLS_CERT_FILE: "/etc/sluice/smtp.crt" }),
      (error: Error) =>
        error instanceof ConfigError && /SLUICE_SMTP_TLS_CERT_FILE and SLUICE_SMTP_TLS_KEY_FILE go together/.test(error.message),
    );
  });
});
