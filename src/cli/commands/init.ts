// `sluice init <source | action | step> [file]`: writes a small working component to start
// from. An existing file is never overwritten.
import { existsSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { TEMPLATES, type TemplateKind } from "./init-templates.js";

const KINDS = Object.keys(TEMPLATES) as TemplateKind[];

export function initCommand(program: Command): void {
  program
    .command("init")
    .description("write a new component to start from: a source, an action or a workflow step")
    .argument("<kind>", KINDS.join(" | "))
    .argument("[file]", "where to write it (default: <kind>.mjs)")
    .action((kind: string, file: string | undefined) => {
      if (!(KINDS as string[]).includes(kind)) throw new UsageError(`cannot init "${kind}": choose one of ${KINDS.join(", ")}`);
      const target = file ?? `${kind}.mjs`;
      if (existsSync(target)) throw new UsageError(`${target} exists; name another file`);
      // The key is the file's name as a slug: keys name a component across its versions.
      const key =
        basename(target)
          .replace(/\.[^.]+$/, "")
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, "") || kind;
      writeFileSync(target, TEMPLATES[kind as TemplateKind](key), { flag: "wx" });
      process.stdout.write(`wrote ${target} (a ${kind} with the key "${key}")\n`);
    });
}
