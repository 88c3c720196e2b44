import type { Actor, Ctx } from "../context.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import { webhookView, type WebhookView } from "./webhook-view.js";

export async function listWebhooks({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<WebhookView>> {
  const query = ctx.db.selectFrom("webhooks").selectAll().where("user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "webhooks", page);
  return { page_info: result.page_info, data: result.data.map((row) => webhookView(row, { withUserId: false })) };
}
