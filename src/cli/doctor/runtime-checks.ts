// Node.js and npm. Sluice runs on Node 20, 22 and 24; the npm it runs for user code's packages
// is its own dependency (npm 11, whose --allow-* settings refuse anything but registry
// packages), not the npm that came with Node: a missing or older one means an incomplete install.
import { ok, fail, type CheckResult } from "./check.js";

export const MIN_NODE_MAJOR = 20;
export const MIN_NPM_MAJOR = 11;

const majorOf = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1] ?? NaN);

export function nodeCheck(version: string): CheckResult {
  if (majorOf(version) >= MIN_NODE_MAJOR) return ok("node", `Node.js ${version}`);
  return fail(
    "node",
    `Node.js ${version} is too old`,
    `install Node.js ${MIN_NODE_MAJOR}, 22 or 24 (https://nodejs.org, or nvm install 22)`,
  );
}

/** `version` is what `npm --version` printed, or undefined when npm could not be run. */
export function npmCheck(version: string | undefined): CheckResult {
  if (version === undefined)
    return fail("npm", "npm could not be run", "run `npm install` in Sluice's folder (npm is one of its dependencies)");
  if (majorOf(version) >= MIN_NPM_MAJOR) return ok("npm", `npm ${version}`);
  return fail(
    "npm",
    `npm ${version}: installs of user code's packages need npm ${MIN_NPM_MAJOR}'s --allow-* settings`,
    "run `npm install` in Sluice's folder (npm is one of its dependencies)",
  );
}
