// A benchmark file run as a script (node dist/bench/<name>.js) prints its report as JSON; with
// BENCH_DATABASE_URL it runs on PostgreSQL, in a database of its own (as `npm run bench` does,
// so that runs can follow each other).
import { withFreshDatabase } from "./fresh-database.js";

export function runDirectly<T>(moduleUrl: string, run: (options: { database?: string }) => Promise<T>): void {
  if (!process.argv[1] || !moduleUrl.endsWith(process.argv[1].replace(/\\/g, "/"))) return;
  const adminUrl = process.env.BENCH_DATABASE_URL;
  (adminUrl ? withFreshDatabase(adminUrl, (database) => run({ database })) : run({}))
    .then((report) => console.log(JSON.stringify(report, null, 2)))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
