// `sluice backup <file>`: a consistent copy of the running (or stopped) server's SQLite database
// and its credentials key (domain/operations/backup-database.ts). Run beside the server: the
// copy is read from the database file on a connection of its own, the server keeps serving.
// Exit codes: 0 done; 1 the copy was written but a key is missing or wrong; 2 not for this
// setup (PostgreSQL: pg_dump), no database, or the file exists.
import type { Command } from "commander";
import { loadConfig } from "../../config.js";
import { ServiceError } from "../../lib/errors.js";
import { CommandFailed, UsageError } from "../errors.js";

export function backupCommand(program: Command): void {
  program
    .command("backup")
    .description("copy the SQLite database (consistently, while the server runs) to <file> and its credentials key to <file>.key")
    .argument("<file>", "where the copy goes")
    .option("--force", "replace <file> and <file>.key when they exist")
    .action(async (file: string, options: { force?: boolean }) => {
      const { backupDatabase } = await import("../../domain/operations/backup-database.js");
      let result;
      try {
        result = await backupDatabase(loadConfig(), file, { force: options.force === true });
      } catch (error) {
        if (error instanceof ServiceError) throw new UsageError(error.message);
        throw error;
      }
      process.stdout.write(`database copied to ${result.databaseFile} (${result.pages} pages, checked)\n${result.keyNote}\n`);
      if (result.problems.length > 0) throw new CommandFailed(result.problems.join("\n"));
    });
}
