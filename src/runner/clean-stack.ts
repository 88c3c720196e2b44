// Stack traces of user code go back to users ($errors events, API responses): they must not
// show the host's paths or Sluice's own frames. Frames of the service's code are dropped, and paths
// into the module cache are shortened to what the user wrote: "component.mjs:3:11",
// "lib/helper.mjs:1:5", "is-number@7.0.0/node_modules/is-number/index.js:2:9".
import { fileURLToPath } from "node:url";

// The service's compiled code: the runner, and the egress guard it loads (whose refusals are
// thrown from its frames, and reach users as the cause of their HTTP client's error).
const SERVICE_ROOT = fileURLToPath(new URL("..", import.meta.url)); // …/src/

const MODULE_PATH = /(?:file:\/\/)?\/[^\s()]*?\/runtime\/modules\/[^/\s()]+\/[0-9a-f]{16,}\//g;
const PACKAGE_PATH = /(?:file:\/\/)?\/[^\s()]*?\/runtime\/packages\//g;

function isRuntimeFrame(line: string): boolean {
  const trimmed = line.trimStart();
  return trimmed.startsWith("at ") && line.includes(SERVICE_ROOT);
}

export function cleanStack(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => !isRuntimeFrame(line))
    .map((line) => line.replace(MODULE_PATH, "").replace(PACKAGE_PATH, ""))
    .join("\n");
}
