// The defaults of the limits that keep one tenant from hurting the host or the others, as the
// documentation promises them: tests elsewhere inject small values, so a default changed by
// mistake would pass them all. (Inbound e-mail's are in test/smtp-inbound/inbound-email-config.)
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { TUNNEL_IDLE_MS } from "../../src/egress/egress-proxy.js";
import { DEFAULT_CACHE_BYTES, DEFAULT_INSTALLS_PER_DAY } from "../../src/runtime/modules/npm-cache.js";

describe("tenant limits by default", () => {
  const config = loadConfig({});

  it("npm: a 2,048 MB package cache, 100 installs per account and day", () => {
    assert.equal(config.packageCacheMb, 2048);
    assert.equal(DEFAULT_CACHE_BYTES, 2048 * 1024 * 1024);
    assert.equal(config.npmInstallsPerDay, 100);
    assert.equal(DEFAULT_INSTALLS_PER_DAY, 100);
  });

  it("egress tunnels: 64 per account, closed after 60 s idle", () => {
    assert.equal(config.maxTunnelsPerAccount, 64);
    assert.equal(TUNNEL_IDLE_MS, 60_000);
  });

  it("jobs: 25 attempts, then dead", () => {
    assert.equal(config.jobMaxAttempts, 25);
  });

  it("dir props: 1,000 files per source", () => {
    assert.equal(config.sourceFilesMax, 1000);
  });
});
