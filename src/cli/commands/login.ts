// `sluice login`: asks for the server's URL and an API key, checks them with
// GET /v1/users/me, and stores them for the other commands (client/settings.ts).
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { ApiClient } from "../client/api-client.js";
import { UsageError } from "../errors.js";
import { normalizeApiUrl, saveClientSettings } from "../client/settings.js";
import { printJson } from "../output.js";
import type { JsonOption } from "./common.js";

/** Reads answers line by line: from a person at a terminal, or from a pipe. */
function prompter() {
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
      const prompt = prompter();
      try {
        const fallback = process.env.SLUICE_API_URL || "http://127.0.0.1:8080";
        const url = (await prompt.ask(`Sluice server URL [${fallback}]: `))?.trim() || fallback;
        const key = (await prompt.ask("API key: "))?.trim();
        if (!key) throw new UsageError("an API key is required");
        if (!/^https?:\/\//i.test(url)) throw new UsageError(`not an http(s) URL: ${url}`);
        const settings = { apiUrl: normalizeApiUrl(url), apiKey: key };
        const { data } = await new ApiClient(settings).get("/users/me");
        const path = await saveClientSettings(settings);
        if (options.json) printJson(data);
        else process.stdout.write(`logged in to ${settings.apiUrl} as ${data.username}; saved in ${path}\n`);
      } finally {
        prompt.close();
      }
    });
}
