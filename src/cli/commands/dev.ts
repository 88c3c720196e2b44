// `sluice dev <file>`: deploys the file as a source, follows its events, logs and errors,
// and on every save of the file or of a file it imports updates the same source. Ctrl-C
// deletes the source (unless --keep). `--dc <id>` reuses a source kept from an earlier session
// (updated with the file, never deleted), so its URL stays the same. fs.watch watches the folders, not the files, so an
// editor that saves by replacing the file is still seen.
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { Command } from "commander";
import type { ApiClient } from "../client/api-client.js";
import { CommandFailed, UsageError } from "../errors.js";
import { readLocalComponent, type LocalComponent } from "../client/local-files.js";
import { withSyntaxLocation } from "../client/syntax-location.js";
import { followTail } from "../client/sse.js";
import { eventLine } from "../output.js";
import { client, collectProp, sourceLines } from "./common.js";

const SETTLE_MS = 100;
const STREAMS = ["", "$logs", "$errors"];

type Options = { name?: string; dc?: string; prop: Record<string, unknown>; keep?: boolean; json?: boolean };

const codeFields = (local: LocalComponent) => ({
  component_code: local.code,
  ...(Object.keys(local.files).length > 0 ? { component_files: local.files } : {}),
});

export function devCommand(program: Command): void {
  program
    .command("dev")
    .description("deploy a file, redeploy it on every save, and show its events, logs and errors as they happen")
    .argument("<file>", "the component's file")
    .option("--name <name>", "the source's name")
    .option("--prop <key=value>", "a configured prop (repeatable; JSON when it parses)", collectProp, {})
    .option("--dc <id>", "reuse this source (its URL stays the same); it is kept when dev stops")
    .option("--keep", "keep the source when dev stops")
    .option("--json", "print events as JSON lines")
    .action(async (file: string, options: Options) => {
      const api = client();
      let local = readLocalComponent(file);
      const source = await devSource(api, file, local, options).catch((error: unknown) => {
        throw withSyntaxLocation(error, local);
      });
      process.stderr.write(sourceLines(source));
      if (options.dc) options.keep = true;
      else if (options.keep) process.stderr.write(`next time, \`sluice dev --dc ${source.id} ${file}\` reuses this source and its URL\n`);
      await runDev(api, file, source.id, local, options, (next) => (local = next));
    });
}

/** The source of this session: the one --dc names, updated with the file, or a new one. */
async function devSource(api: ApiClient, file: string, local: LocalComponent, options: Options): Promise<any> {
  if (options.dc) {
    if (!/^dc_[A-Za-z0-9]+$/.test(options.dc)) throw new UsageError(`--dc takes a source id (dc_…), got "${options.dc}"`);
    const props = Object.keys(options.prop).length > 0 ? { configured_props: options.prop } : {};
    return (
      await api.request("PUT", `/sources/${options.dc}`, {
        json: { ...codeFields(local), ...props, ...(options.name ? { name: options.name } : {}), active: true },
      })
    ).data;
  }
  const name = options.name ?? `dev-${basename(file).replace(/\.[^.]+$/, "")}`;
  return (await api.request("POST", "/sources", { json: { ...codeFields(local), name, configured_props: options.prop } })).data;
}

async function runDev(
  api: ApiClient,
  file: string,
  sourceId: string,
  initial: LocalComponent,
  options: Options,
  onDeployed: (local: LocalComponent) => void,
): Promise<void> {
  const controller = new AbortController();
  let deployed = JSON.stringify(codeFields(initial));
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let updating = Promise.resolve();

  const redeploy = async () => {
    let local: LocalComponent;
    try {
      local = readLocalComponent(file);
    } catch (error) {
      process.stderr.write(`sluice: ${(error as Error).message}\n`);
      return;
    }
    const fields = codeFields(local);
    if (JSON.stringify(fields) === deployed) return;
    try {
      await api.request("PUT", `/sources/${sourceId}`, { json: { ...fields, active: true } });
      deployed = JSON.stringify(fields);
      onDeployed(local);
      process.stderr.write(`updated ${sourceId}\n`);
    } catch (error) {
      // Code that does not load is the server's refusal: shown, and the next save is tried.
      process.stderr.write(`sluice: ${(withSyntaxLocation(error, local) as Error).message}\n`);
    }
    watchFiles(local.paths);
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => (updating = updating.then(redeploy)), SETTLE_MS);
  };
  const watchFiles = (paths: string[]) => {
    for (const watcher of watchers) watcher.close();
    const byDir = new Map<string, Set<string>>();
    for (const path of paths) (byDir.get(dirname(path)) ?? byDir.set(dirname(path), new Set()).get(dirname(path))!).add(basename(path));
    watchers = [...byDir].map(([dir, names]) =>
      watch(dir, (_event, changed) => (changed === null || names.has(changed.toString()) ? schedule() : undefined)),
    );
  };
  watchFiles(initial.paths);

  let connected = 0;
  const print = (summary: any) => process.stdout.write((options.json ? JSON.stringify(summary) : eventLine(summary)) + "\n");
  const tails = STREAMS.map((stream) =>
    followTail(api, `/sources/${sourceId}/sse`, {
      query: { event_name: stream || undefined },
      signal: controller.signal,
      onConnected: () => {
        if (++connected === STREAMS.length)
          process.stderr.write(`watching ${file} (Ctrl-C to stop${options.keep ? "" : " and delete the source"})\n`);
      },
      onEvent: (event) => print(event.data),
    }),
  );
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  const failed = Promise.all(tails).then(() => undefined);
  try {
    await Promise.race([stopped, failed]);
  } finally {
    controller.abort();
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
    await updating;
    if (!options.keep) {
      await api.request("DELETE", `/sources/${sourceId}`).then(
        () => process.stderr.write(`deleted ${sourceId}\n`),
        (error: Error) => process.stderr.write(`sluice: could not delete ${sourceId}: ${error.message}\n`),
      );
    }
  }
  await failed.catch((error: Error) => {
    throw new CommandFailed(error.message);
  });
}
