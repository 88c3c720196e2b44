// Where a runner finds what it may read. Each place is a file or folder on the host and the path
// the runner knows it by. Inside bubblewrap every place is bound at a neutral path under /sluice,
// so nothing the runner sees (module paths, stack traces, a readdir) reveals the host's layout;
// without the sandbox the runner reads the host paths themselves. Either way the service writes
// paths it sends a runner (entry modules, the egress proxy's socket) through `toRunner`.
import { realpathSync } from "node:fs";
import { sep } from "node:path";

export interface RunnerPlace {
  /** The real path on the host (no symbolic link on the way: grants and binds are of real paths). */
  host: string;
  /** The path the runner uses. */
  runner: string;
  folder: boolean;
}

/** The neutral paths inside the sandbox. */
export const NEUTRAL = {
  node: "/sluice/bin/node",
  /** The compiled runner keeps its layout below this: src/runner, src/egress, package.json. */
  app: "/sluice/app",
  /** The data directory's `runtime` folder: the package cache and the accounts' module folders. */
  data: "/sluice/runtime",
  egress: "/sluice/egress",
  extraCaCerts: "/sluice/extra-ca-certs.pem",
} as const;

/** A place seen at its own real path (no sandbox). */
export function samePlace(path: string, folder: boolean): RunnerPlace {
  const real = realpathSync(path);
  return { host: real, runner: real, folder };
}

/** A place bound at a neutral path (bubblewrap). */
export function neutralPlace(path: string, runner: string, folder: boolean): RunnerPlace {
  return { host: realpathSync(path), runner, folder };
}

/**
 * Translates a host path into the runner's: the place holding it that is nearest wins. A path
 * outside every place is a bug of the service (the runner could not read it anyway).
 */
export function toRunnerPath(places: readonly RunnerPlace[], hostPath: string): string {
  let best: RunnerPlace | undefined;
  for (const place of places) {
    const inside = hostPath === place.host || (place.folder && hostPath.startsWith(place.host + sep));
    if (inside && (!best || place.host.length > best.host.length)) best = place;
  }
  if (!best) throw new Error(`${hostPath} is in none of the runner's places`);
  return best.runner + hostPath.slice(best.host.length);
}
