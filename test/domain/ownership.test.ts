// The emitters and listeners a subscription may name, checked before any database read: the
// messages list the kinds of the resource-kinds table exactly as the API has always worded them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Ctx } from "../../src/domain/context.js";
import { assertEmitter, assertListener } from "../../src/domain/ownership.js";

// Refusals happen before the context is used: a read through it would throw a TypeError instead.
const ctx = {} as Ctx;
const actor = { userId: "u_test" };
const refusal = (message: string) => (error: any) => error.code === "VALIDATION" && error.message === message;

describe("ownership checks of subscriptions", () => {
  it("refuse an emitter that is not a workflow, a source or their glob", async () => {
    const message = "emitter_id must be a workflow id (p_…), a source id (dc_…) or a glob p_* or dc_*";
    for (const id of ["wh_abc", "u_abc", "abc", "*", "wh_*", ""]) await assert.rejects(assertEmitter(ctx, actor, id), refusal(message), id);
  });

  it("accept the emitter globs without a lookup", async () => {
    await assertEmitter(ctx, actor, "p_*");
    await assertEmitter(ctx, actor, "dc_*");
  });

  it("refuse a listener glob, and a listener that is not a workflow, a source or a webhook", async () => {
    await assert.rejects(assertListener(ctx, actor, "dc_*"), refusal("listener_id must be one workflow, source or webhook id, not a glob"));
    const message = "listener_id must be a workflow id (p_…), a source id (dc_…) or a webhook id (wh_…)";
    for (const id of ["u_abc", "sub_abc", "abc", ""]) await assert.rejects(assertListener(ctx, actor, id), refusal(message), id);
  });
});
