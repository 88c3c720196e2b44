// `sluice list [sources | workflows | webhooks | subscriptions | accounts | components | registry]`:
// a table of every page. Components are the account's own (published with `sluice publish`, or
// saved by a deploy); the registry's published ones, which deploy takes by key, are `registry`.
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { printJson, printTable, time } from "../output.js";
import { client, type JsonOption } from "./common.js";

const WHAT = ["sources", "workflows", "webhooks", "subscriptions", "accounts", "components", "registry"] as const;

export function listCommand(program: Command): void {
  program
    .command("list")
    .description(`list the account's ${WHAT.slice(0, -1).join(", ")}, or the registry's published components (sources by default)`)
    .argument("[what]", WHAT.join(" | "), "sources")
    .option("--json", "print the API's data as JSON")
    .action(async (what: string, options: JsonOption) => {
      if (!(WHAT as readonly string[]).includes(what)) throw new UsageError(`cannot list "${what}": choose one of ${WHAT.join(", ")}`);
      const api = client();
      const items: any[] =
        what === "subscriptions"
          ? (await api.get("/users/me/subscriptions")).data
          : what === "registry"
            ? await api.all("/components/registry")
            : await api.all(`/users/me/${what}`);
      if (options.json) return printJson(items);
      if (what === "sources")
        printTable(
          ["ID", "NAME", "ACTIVE", "UPDATED"],
          items.map((s) => [s.id, s.name, String(s.active), time(s.updated_at)]),
        );
      else if (what === "workflows")
        printTable(
          ["ID", "NAME", "ACTIVE", "UPDATED"],
          items.map((w) => [w.id, w.name ?? "", String(w.active), time(w.updated_at)]),
        );
      else if (what === "webhooks")
        printTable(
          ["ID", "NAME", "ACTIVE", "URL"],
          items.map((w) => [w.id, w.name ?? "", String(w.active), w.url]),
        );
      else if (what === "accounts")
        printTable(
          ["ID", "APP", "NAME", "FIELDS", "WEBHOOK URL"],
          items.map((a) => [a.id, a.app, a.name ?? "", (a.fields ?? []).join(","), a.webhook_url ?? ""]),
        );
      else if (what === "components")
        printTable(
          ["ID", "KEY", "TYPE", "VERSION", "NAME", "CREATED"],
          items.map((c) => [c.id, c.key ?? "", c.type, c.version, c.name, time(c.created_at)]),
        );
      else if (what === "registry")
        printTable(
          ["KEY", "VERSION", "NAME", "PACKAGE"],
          items.map((c) => [c.key, c.version, c.name, c.package ? `${c.package.name}@${c.package.version}` : ""]),
        );
      else
        printTable(
          ["ID", "EMITTER", "STREAM", "LISTENER"],
          items.map((s) => [s.id, s.emitter_id, s.event_name ?? "", s.listener_id]),
        );
    });
}
