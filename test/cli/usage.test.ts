// The one usage text of `sluice`: commander's help, generated from the command definitions,
// for the server-side commands (serve, users, registry, jobs) as for the client commands; and
// bad usage of a server-side command exits 2 with a clear message and a pointer to --help,
// before any database is opened.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli, type RunResult } from "../helpers/sluice-process.js";

describe("sluice usage", () => {
  let dir: string;
  let sluice: (...args: string[]) => Promise<RunResult>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sluice-usage-"));
    // No server and no admin token: registry and jobs would use this (empty) data directory.
    const env = { PATH: process.env.PATH ?? "", SLUICE_DATA_DIR: join(dir, "data") };
    sluice = (...args) => runCli(args, env, dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("--help lists every command once, server-side ones included, and is what a bare `sluice` prints", async () => {
    const help = await sluice("--help");
    assert.equal(help.code, 0, help.stderr);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z-]+)\b/gm)].map((m) => m[1]);
    for (const command of ["serve", "users", "registry", "jobs", "login", "deploy", "list", "events", "dev"]) {
      assert.equal(listed.filter((name) => name === command).length, 1, `${command} in\n${help.stdout}`);
    }
    assert.doesNotMatch(help.stdout, /users create --username/, "no hand-kept second synopsis");
    const bare = await sluice();
    assert.equal(bare.code, 2);
    assert.equal(bare.stderr, help.stdout);
  });

  it("each server-side command has its own generated help", async () => {
    for (const [args, expected] of [
      [
        ["users", "--help"],
        [/^ {2}create\b/m, /^ {2}rotate-key\b/m],
      ],
      [
        ["users", "create", "--help"],
        [/--username <name>/, /--email <address>/, /--plan <plan>.*"free", "paid"/],
      ],
      [
        ["users", "rotate-key", "--help"],
        [/--username <name>/, /--id <id>/],
      ],
      [["serve", "--help"], [/--role <roles>.*api, worker, scheduler/s]],
      [["registry", "add", "--help"], [/<package>/]],
      [
        ["jobs", "dead", "--help"],
        [/--limit <n>/, /--after <cursor>/],
      ],
    ] as const) {
      const result = await sluice(...args);
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
      for (const pattern of expected) assert.match(result.stdout, pattern, args.join(" "));
    }
  });

  it("bad usage of a server-side command exits 2 with the message and a pointer to that command's --help", async () => {
    for (const [args, message, command] of [
      [["users", "create", "--username", "dave"], /required option '--email <address>'/, "users create"],
      [["users", "create", "--username", "dave", "--email", "d@example.test", "--plan", "gold"], /'gold' is invalid/, "users create"],
      [["users", "create", "--username", "dave", "--email", "d@example.test", "--bogus"], /unknown option '--bogus'/, "users create"],
      [["users", "rotate-key"], /give either --username or --id/, "users rotate-key"],
      [["users", "rotate-key", "--username", "dave", "--id", "u_1"], /cannot be used with/, "users rotate-key"],
      [["serve", "--role", "chef"], /unknown role "chef"/, "serve"],
      [["registry", "add"], /missing required argument 'package'/, "registry add"],
      [["registry", "add", "--", "https://example.test/x.tgz"], /is not an npm package name/, "registry add"],
      [["jobs", "dead", "--limit", "0"], /--limit must be an integer from 1 to 100/, "jobs dead"],
      [["jobs", "retry"], /missing required argument 'id'/, "jobs retry"],
      [["frobnicate"], /unknown command 'frobnicate'/, ""],
    ] as const) {
      const result = await sluice(...args);
      const shown = `${args.join(" ")}: ${result.stdout} ${result.stderr}`;
      assert.equal(result.code, 2, shown);
      assert.equal(result.stdout, "", shown);
      assert.match(result.stderr, new RegExp(`^sluice: .*${message.source}`, "m"), shown);
      const path = command ? `sluice ${command}` : "sluice";
      assert.match(result.stderr, new RegExp(`^usage: ${path} `, "m"), shown);
      assert.ok(result.stderr.includes(`(see ${path} --help)`), shown);
    }
    assert.deepEqual(readdirSync(dir), [], "no database was opened for bad usage");
  });

  it("a command group without its subcommand prints the group's help and exits 2", async () => {
    for (const group of ["users", "registry", "jobs"]) {
      const result = await sluice(group);
      assert.equal(result.code, 2, `${group}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^Usage: sluice ${group} `, "m"));
    }
  });
});
