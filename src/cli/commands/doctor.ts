// `sluice doctor`: checks what the server needs from this machine and its settings, and says
// what is wrong and how to fix it (cli/doctor/). Exit 0 when nothing failed, 1 otherwise.
import type { Command } from "commander";
import { CommandFailed } from "../errors.js";

export function doctorCommand(program: Command): void {
  program
    .command("doctor")
    .description(
      "check Node.js and npm, the sandbox, cgroups, disk, database, key, public URL and ports; print what is wrong and how to fix it",
    )
    .action(async () => {
      const { runDoctor } = await import("../doctor/run-doctor.js");
      const code = await runDoctor({ env: process.env, write: (text) => process.stdout.write(text) });
      // The lines above said what is wrong; the exit code is all that is left to say.
      if (code !== 0) throw new CommandFailed("doctor found problems (see above)");
    });
}
