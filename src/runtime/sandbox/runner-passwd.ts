// The account database a sandboxed runner sees: /etc/passwd and /etc/group with one entry, the
// uid and gid it runs as inside, whose home is its /tmp. Without them getpwuid() finds nothing,
// so os.userInfo() throws and libraries that look for a home (the AWS SDK reads ~/.aws) fail;
// HOME=/tmp in the runner's environment answers os.homedir() the same way. The two files are
// written once per process, readable by all, and removed when the process exits; written again
// when they are gone (a long-running service's temp folder may be cleaned under it).
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const RUNNER_HOME = "/tmp";
export const RUNNER_USER_NAME = "sluice";

export interface RunnerAccountFiles {
  passwd: string;
  group: string;
}

export function passwdLine(uid: number, gid: number): string {
  return `${RUNNER_USER_NAME}:x:${uid}:${gid}:Sluice runner:${RUNNER_HOME}:/usr/sbin/nologin\n`;
}

const made = new Map<string, RunnerAccountFiles>();

/** The files for these ids; called at each runner start, so that files removed meanwhile come back. */
export function runnerAccountFiles(uid: number, gid: number): RunnerAccountFiles {
  const key = `${uid}:${gid}`;
  const known = made.get(key);
  if (known && existsSync(known.passwd) && existsSync(known.group)) return known;
  const dir = mkdtempSync(join(tmpdir(), "sluice-etc-"));
  chmodSync(dir, 0o755);
  const files = { passwd: join(dir, "passwd"), group: join(dir, "group") };
  writeFileSync(files.passwd, passwdLine(uid, gid), { mode: 0o644 });
  writeFileSync(files.group, `${RUNNER_USER_NAME}:x:${gid}:\n`, { mode: 0o644 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  made.set(key, files);
  return files;
}
