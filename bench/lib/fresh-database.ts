// A benchmark on PostgreSQL gets a database of its own, made next to the one named by
// BENCH_DATABASE_URL and dropped afterwards, so runs start equal and leave nothing behind.
import { createScratchDatabase } from "../../src/store/scratch-database.js";

export async function withFreshDatabase<T>(adminUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const scratch = await createScratchDatabase(adminUrl, "sluice_bench");
  try {
    return await run(scratch.url);
  } finally {
    await scratch.drop();
  }
}
