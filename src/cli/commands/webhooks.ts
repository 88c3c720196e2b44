// `sluice webhooks create <url> | deliveries <webhook> | resend <webhook> <delivery>`.
import type { Command } from "commander";
import { resolveRef } from "../client/resolve.js";
import { printJson, printTable, time } from "../output.js";
import { client, type JsonOption } from "./common.js";

interface Attempt {
  status_code?: number | null;
  duration_ms?: number;
  error?: string | null;
}

/** Each attempt, oldest first, as its HTTP status (or "-" when no response came), duration and error; last in the row because errors are long. */
function attemptsText(attempts: Attempt[] | undefined): string {
  if (!Array.isArray(attempts) || attempts.length === 0) return "";
  return attempts.map((a) => `${a.status_code ?? "-"} ${a.duration_ms ?? 0}ms${a.error ? ` ${a.error}` : ""}`).join(" | ");
}

export function webhookCommands(program: Command): void {
  const webhooks = program.command("webhooks").description("create webhooks, and see or resend their deliveries");
  webhooks
    .command("create")
    .description("create a webhook")
    .argument("<url>", "where deliveries are POSTed")
    .option("--name <name>", "the webhook's name")
    .option("--json", "print the API's data as JSON")
    .action(async (url: string, options: JsonOption & { name?: string }) => {
      const { data } = await client().request("POST", "/webhooks", { query: { url, name: options.name } });
      if (options.json) return printJson(data);
      process.stdout.write(`id:             ${data.id}\nurl:            ${data.url}\nsigning secret: ${data.signing_secret}\n`);
    });
  webhooks
    .command("deliveries")
    .description("list a webhook's deliveries, newest first")
    .argument("<webhook>", "the webhook's id or name")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, options: JsonOption) => {
      const api = client();
      const { id } = await resolveRef(api, ref, ["webhook"]);
      const items = await api.all(`/webhooks/${id}/deliveries`);
      if (options.json) return printJson(items);
      printTable(
        ["ID", "STATUS", "EMITTER", "CREATED", "ATTEMPTS"],
        items.map((d: any) => [d.id, d.status, d.emitter_id ?? "", time(d.created_at), attemptsText(d.attempts)]),
      );
    });
  webhooks
    .command("resend")
    .description("send a delivery again")
    .argument("<webhook>", "the webhook's id or name")
    .argument("<delivery>", "the delivery's id")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, delivery: string, options: JsonOption) => {
      const api = client();
      const { id } = await resolveRef(api, ref, ["webhook"]);
      const body = await api.request("POST", `/webhooks/${id}/deliveries/${encodeURIComponent(delivery)}/resend`);
      if (options.json) return printJson(body?.data ?? null);
      process.stdout.write(`resent ${delivery}\n`);
    });
}
