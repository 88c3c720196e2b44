// HTTP from user code through the egress proxy against the same code connecting directly:
// a runner makes keep-alive requests (and, separately, a new connection per request) to a bare
// node:http server for a few seconds. "Direct" is a runner without the in-process guard and
// without the sandbox, whose connections go straight to the server; "proxied" is a runner as
// Sluice starts it (sandbox as chosen here), every connection tunnelled through the proxy.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { createComponentRunner, runnerSettings, type ComponentRunner } from "../src/runtime/component-runner.js";
import { chooseSandbox } from "../src/runtime/sandbox/choose-sandbox.js";
import { startBareServer } from "./lib/processes.js";

export interface EgressProxyReport {
  sandbox: string;
  keepAlive: { directPerSecond: number; proxiedPerSecond: number; ratio: number };
  newConnections: { directPerSecond: number; proxiedPerSecond: number; ratio: number };
}

const CONCURRENCY = 20;

function loadCode(url: string, keepAlive: boolean, seconds: number): string {
  return `module.exports = { async run() {
    const http = require("http");
    const agent = new http.Agent({ keepAlive: ${keepAlive}, maxSockets: ${CONCURRENCY} });
    const end = Date.now() + ${seconds * 1000};
    let done = 0;
    const one = () => new Promise((ok, fail) => http.get(${JSON.stringify(url)}, { agent }, (res) => { res.resume(); res.on("end", ok); }).on("error", fail));
    await Promise.all(Array.from({ length: ${CONCURRENCY} }, async () => { while (Date.now() < end) { await one(); done++; } }));
    agent.destroy();
    this.$emit(done / ${seconds});
  } };`;
}

async function perSecond(runner: ComponentRunner, code: string): Promise<number> {
  const result = await runner.execute({
    userId: "u_bench_egress",
    code,
    entry: "run",
    event: {},
    props: {},
    state: {},
    context: { sourceId: "dc_bench" },
  });
  if (result.error) throw new Error(`egress benchmark run failed: ${result.error.message}`);
  return Math.round(result.emits[0]!.event as number);
}

export async function runEgressProxyBench(seconds = Number(process.env.BENCH_EGRESS_SECONDS ?? 5)): Promise<EgressProxyReport> {
  const bare = await startBareServer();
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-egress-"));
  const config = { ...loadConfig({}), allowPrivateEgress: true };
  const sandbox = chooseSandbox("auto");
  const direct = createComponentRunner({
    ...runnerSettings({ ...config, dataDir: join(dataDir, "direct") }, chooseSandbox("none")),
    withoutInProcessGuard: true,
  });
  const proxied = createComponentRunner(runnerSettings({ ...config, dataDir: join(dataDir, "proxied") }, sandbox));
  try {
    const measure = async (keepAlive: boolean) => {
      const code = loadCode(bare.url, keepAlive, seconds);
      await perSecond(direct, loadCode(bare.url, keepAlive, 1)); // warm both runners
      await perSecond(proxied, loadCode(bare.url, keepAlive, 1));
      const directPerSecond = await perSecond(direct, code);
      const proxiedPerSecond = await perSecond(proxied, code);
      return { directPerSecond, proxiedPerSecond, ratio: Math.round((proxiedPerSecond / directPerSecond) * 1000) / 1000 };
    };
    return { sandbox: sandbox.mode, keepAlive: await measure(true), newConnections: await measure(false) };
  } finally {
    await Promise.all([direct.close(), proxied.close()]);
    await bare.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
