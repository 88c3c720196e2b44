// The check of `data_store` props at save time, for sources (configured_props) and workflow
// steps (a step's props) alike: a configured value is `{dataStoreId: "ds_…"}` naming a store of
// the same account. A 400 names the prop; an unconfigured optional prop is fine (this.<prop> is
// then undefined). Whether the store still exists at run time is checked again by every call.
import { invalid } from "../../lib/errors.js";
import type { Ctx } from "../context.js";

export const DATA_STORE = "data_store";

/** The ids of the stores the props name, by prop; throws a 400 naming the first bad prop. */
export async function checkDataStoreProps(
  ctx: Pick<Ctx, "db">,
  input: {
    userId: string;
    props: ReadonlyArray<{ name: string; type: string; optional?: boolean }>;
    configured: Record<string, unknown>;
    /** How the error names a prop's place, e.g. "configured_props" or "steps[1].props". */
    where?: string;
  },
): Promise<void> {
  const where = input.where ?? "configured_props";
  for (const prop of input.props) {
    if (prop.type !== DATA_STORE) continue;
    const value = input.configured[prop.name];
    const label = `${where}.${prop.name}`;
    if (value === undefined || value === null) {
      if (prop.optional) continue;
      throw invalid(`${label} is required: a data store, as {"dataStoreId": "ds_…"}`);
    }
    const id = (value as { dataStoreId?: unknown }).dataStoreId;
    if (typeof value !== "object" || Array.isArray(value) || typeof id !== "string")
      throw invalid(`${label} must name a data store, as {"dataStoreId": "ds_…"}`);
    const found = await ctx.db
      .selectFrom("data_stores")
      .select("id")
      .where("id", "=", id)
      .where("user_id", "=", input.userId)
      .executeTakeFirst();
    if (!found) throw invalid(`${label}: data store ${id.slice(0, 128)} was not found in this account`);
  }
}
