// `sluice login`: asks for the server's URL and an API key (not shown while typed at a
// terminal; a pipe works too), checks them with GET /v1/users/me, and stores them as the chosen
// profile (client/settings.ts). `sluice logout` forgets the profile.
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { ApiClient } from "../client/api-client.js";
import { readHidden, readLine } from "../client/hidden-input.js";
import { UsageError } from "../errors.js";
import { configPath, normalizeApiUrl, profileName, removeClientSettings, saveClientSettings } from "../client/settings.js";
import { printJson } from "../output.js";
import type { JsonOption } from "./common.js";

interface Prompter {
  ask(question: string, hidden?: boolean): Promise<string | undefined>;
  close(): void;
}

/** A person at a terminal: the key is read with echo off. */
function terminalPrompter(): Prompter {
  const input = process.stdin as NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };
  return {
    async ask(question, hidden = false) {
      if (hidden) return readHidden(input, process.stderr, question);
      process.stderr.write(question);
      return readLine(input);
    },
    close: () => input.pause(),
  };
}

/** Reads answers line by line from a pipe (nothing to hide: a pipe does not echo). */
function pipePrompter(): Prompter {
  const lines = createInterface({ input: process.stdin, terminal: false });
  const queue: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let ended = false;
  lines.on("line", (line) => (waiting.length > 0 ? waiting.shift()!(line) : queue.push(line)));
  lines.on("close", () => {
    ended = true;
    for (const wake of waiting.splice(0)) wake(undefined);
  });
  return {
    ask(question: string): Promise<string | undefined> {
      process.stderr.write(question);
      if (queue.length > 0) return Promise.resolve(queue.shift());
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => lines.close(),
  };
}

export function loginCommand(program: Command): void {
  program
    .command("login")
    .description("store the server's URL and your API key (checked against the server)")
    .option("--json", "print the API's data (your account) as JSON")
    .action(async (options: JsonOption) => {
      const prompt = process.stdin.isTTY ? terminalPrompter() : pipePrompter();
      try {
        const fallback = process.env.SLUICE_API_URL || "http://127.0.0.1:8080";
        const url = (await prompt.ask(`Sluice server URL [${fallback}]: `))?.trim() || fallback;
        const key = (await prompt.ask("API key: ", true))?.trim();
        if (!key) throw new UsageError("an API key is required");
        if (!/^https?:\/\//i.test(url)) throw new UsageError(`not an http(s) URL: ${url}`);
        const settings = { apiUrl: normalizeApiUrl(url), apiKey: key };
        const { data } = await new ApiClient(settings).get("/users/me");
        const path = await saveClientSettings(settings);
        if (options.json) printJson(data);
        else
          process.stdout.write(`logged in to ${settings.apiUrl} as ${data.username}; saved as the profile "${profileName()}" in ${path}\n`);
      } finally {
        prompt.close();
      }
    });
}

export function logoutCommand(program: Command): void {
  program
    .command("logout")
    .description("forget the stored server and API key of the profile (--profile, SLUICE_PROFILE, else default)")
    .action(async () => {
      const removed = await removeClientSettings();
      process.stdout.write(
        removed
          ? `logged out: the profile "${profileName()}" was removed from ${configPath()}\n`
          : `the profile "${profileName()}" was not stored; nothing to do\n`,
      );
    });
}
