// The closed table of resource kinds: ids are told apart by their prefix, only sources and
// workflows emit (and have globs), every kind listens, and nothing else is a kind.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newId } from "../../src/lib/ids.js";
import {
  EMITTER_GLOBS,
  EMITTER_KINDS,
  emitterGlob,
  kindOfId,
  LISTENER_KINDS,
  oneOf,
  RESOURCE_KINDS,
} from "../../src/lib/resource-kinds.js";

describe("resource kinds", () => {
  it("know each kind by its id prefix, and no other id", () => {
    assert.equal(kindOfId(newId("dc")), "source");
    assert.equal(kindOfId(newId("p")), "workflow");
    assert.equal(kindOfId(newId("wh")), "webhook");
    for (const other of [newId("u"), newId("sub"), newId("del"), "dc", "", "_dc", "DC_abc", "dc_*".replace("dc", "x")])
      assert.equal(kindOfId(other), undefined, other);
  });

  it("let sources and workflows emit, with one glob each, and every kind listen", () => {
    assert.deepEqual(EMITTER_KINDS, ["workflow", "source"]);
    assert.deepEqual(EMITTER_GLOBS, ["p_*", "dc_*"]);
    assert.deepEqual(LISTENER_KINDS, ["workflow", "source", "webhook"]);
    assert.equal(emitterGlob(newId("dc")), "dc_*");
    assert.equal(emitterGlob(newId("p")), "p_*");
  });

  it("name each kind's table", () => {
    assert.deepEqual(Object.fromEntries(Object.entries(RESOURCE_KINDS).map(([kind, row]) => [kind, row.table])), {
      workflow: "workflows",
      source: "sources",
      webhook: "webhooks",
    });
  });

  it("list alternatives in a sentence", () => {
    assert.equal(oneOf(["a"]), "a");
    assert.equal(oneOf(["a", "b"]), "a or b");
    assert.equal(oneOf(["a", "b", "c"]), "a, b or c");
  });
});
