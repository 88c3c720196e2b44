// Node.js and npm. Sluice runs on Node 20, 22 and 24; the npm it runs for user code's packages
// is its own dependency (npm 11, whose --allow-* settings refuse anything but registry
// packages), not the npm that came with Node: a missing or older one means an incomplete install.
import { ok, fail, type CheckResult } from "./check.js";

export const MIN_NPM_MAJOR = 11;

/** The oldest release of each supported major: what Sluice's npm 11 needs (20.17, 22.9) and any 24. */
const SUPPORTED: ReadonlyArray<[major: number, minor: number]> = [
  [20, 17],
  [22, 9],
  [24, 0],
];

export function nodeCheck(version: string): CheckResult {
  const [major, minor] = (/^v?(\d+)\.(\d+)\./.exec(version) ?? []).slice(1).map(Number);
  const newest = SUPPORTED.at(-1)![0];
  if (SUPPORTED.some(([m, least]) => major === m && minor! >= least) || major! > newest) return ok("node", `Node.js ${version}`);
  return fail(
    "node",
    `Node.js ${version} is not supported`,
    `install Node.js 20.17 or newer 20.x, 22.9 or newer 22.x, or 24 (https://nodejs.org, or nvm install 22)`,
  );
}

/** `version` is what `npm --version` printed, or undefined when npm could not be run. */
export function npmCheck(version: string | undefined): CheckResult {
  if (version === undefined)
    return fail("npm", "npm could not be run", "run `npm install` in Sluice's folder (npm is one of its dependencies)");
  if (Number(/^v?(\d+)\./.exec(version)?.[1]) >= MIN_NPM_MAJOR) return ok("npm", `npm ${version}`);
  return fail(
    "npm",
    `npm ${version}: installs of user code's packages need npm ${MIN_NPM_MAJOR}'s --allow-* settings`,
    "run `npm install` in Sluice's folder (npm is one of its dependencies)",
  );
}
