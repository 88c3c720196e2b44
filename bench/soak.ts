// Soak: BENCH_SOAK_MINUTES (20) of steady ingest with deliveries (the end-to-end scenario at
// BENCH_SOAK_RATE, 1,000/s), sampled every BENCH_SOAK_SAMPLE_SECONDS (60): the database's size
// on disk, the service's RSS and its runners' RSS. A platform that can run for months shows
// each of them levelling off. Deliveries are kept for BENCH_SOAK_RETENTION_MINUTES (5), so
// the retention passes have work within the run, as they would over days with the default.
// Not part of `npm run bench` (it takes 20 minutes): `npm run bench:soak`.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "./lib/api.js";
import { deliveredCount, deployIngestToWebhook, newPacedLoad, now, offerPacedLoad, startWebhookReceiver } from "./lib/ingest-to-webhook.js";
import { repoRoot } from "./lib/paths.js";
import { descendantPids } from "./lib/process-cpu.js";
import { startSluiceServer } from "./lib/processes.js";
import { runDirectly } from "./lib/run-directly.js";

export interface SoakSample {
  minute: number;
  accepted: number;
  delivered: number;
  /** Files under the data directory (SQLite's database, WAL and the npm cache) in MB. */
  dataDirMb: number | undefined;
  serviceRssMb: number | undefined;
  runnersRssMb: number | undefined;
}

export interface SoakReport {
  minutes: number;
  ratePerSecond: number;
  retentionMinutes: number;
  accepted: number;
  delivered: number;
  missing: number;
  samples: SoakSample[];
  /** Growth over the run's second half, as a share of the value at its middle. */
  secondHalfGrowth: { dataDir: number | undefined; serviceRss: number | undefined; runnersRss: number | undefined };
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    try {
      total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
    } catch {
      // A file removed while we walked (a WAL checkpoint, an npm temp folder).
    }
  }
  return total;
}

function rssKb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function runSoakBench(options: { database?: string } = {}): Promise<SoakReport> {
  const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 20);
  const rate = Number(process.env.BENCH_SOAK_RATE ?? 1000);
  const sampleSeconds = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 60);
  const retentionMinutes = Number(process.env.BENCH_SOAK_RETENTION_MINUTES ?? 5);
  const receiver = await startWebhookReceiver();
  const sluice = await startSluiceServer({
    ...(options.database ? { DATABASE_URL: options.database } : {}),
    SLUICE_DELIVERY_RETENTION_DAYS: String(retentionMinutes / (24 * 60)),
  });
  const samples: SoakSample[] = [];
  try {
    const endpoint = await deployIngestToWebhook(sluice.url, receiver.url);
    const pid = sluice.child.pid!;
    const load = newPacedLoad();
    const sample = (minute: number) => {
      const runners = descendantPids(pid).map(rssKb);
      const serviceKb = rssKb(pid);
      samples.push({
        minute: Math.round(minute * 10) / 10,
        accepted: load.acceptedAt.size,
        delivered: receiver.arrivals.size,
        dataDirMb: options.database ? undefined : mb(folderBytes(sluice.dataDir)),
        serviceRssMb: serviceKb === undefined ? undefined : mb(serviceKb * 1024),
        runnersRssMb: runners.some((kb) => kb !== undefined)
          ? mb(runners.reduce<number>((sum, kb) => sum + (kb ?? 0), 0) * 1024)
          : undefined,
      });
      const last = samples.at(-1)!;
      console.error(
        `soak ${String(last.minute).padStart(5)} min: accepted ${last.accepted}, delivered ${last.delivered}, data ${last.dataDirMb ?? "-"} MB, service RSS ${last.serviceRssMb ?? "-"} MB, runners RSS ${last.runnersRssMb ?? "-"} MB`,
      );
    };
    const started = now();
    sample(0);
    const sampler = setInterval(() => sample((now() - started) / 60_000), sampleSeconds * 1000);
    await offerPacedLoad(endpoint, rate, minutes * 60, load).finally(() => clearInterval(sampler));
    const accepted = load.acceptedAt.size;
    await waitFor(async () => deliveredCount(load, receiver) >= load.acceptedAt.size, 120_000);
    sample((now() - started) / 60_000);
    const delivered = deliveredCount(load, receiver);
    const growth = (pick: (s: SoakSample) => number | undefined) => {
      const middle = pick(samples[Math.floor(samples.length / 2)]!);
      const end = pick(samples.at(-1)!);
      return middle === undefined || end === undefined || middle === 0 ? undefined : Math.round(((end - middle) / middle) * 1000) / 1000;
    };
    const report: SoakReport = {
      minutes,
      ratePerSecond: rate,
      retentionMinutes,
      accepted,
      delivered,
      missing: accepted - delivered,
      samples,
      secondHalfGrowth: {
        dataDir: growth((s) => s.dataDirMb),
        serviceRss: growth((s) => s.serviceRssMb),
        runnersRss: growth((s) => s.runnersRssMb),
      },
    };
    const outDir = join(repoRoot(), "bench-results");
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, "soak.json"), JSON.stringify(report, null, 2));
    return report;
  } finally {
    await sluice.stop();
    await receiver.close();
  }
}

runDirectly(import.meta.url, runSoakBench);
