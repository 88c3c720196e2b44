import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyDedupe, UNIQUE_IDS_KEPT } from "../../src/domain/sources/dedupe.js";
import type { EmitRecord } from "../../src/runtime/code-runner.js";

const emits = (...ids: Array<string | number | undefined>): EmitRecord[] =>
  ids.map((id, i) => ({ event: { i }, meta: id === undefined ? {} : { id } }));
const ids = (list: EmitRecord[]) => list.map((e) => e.meta.id);

describe("dedupe strategies", () => {
  it("unique drops ids seen in this or earlier executions, remembering the last 100 (FIFO)", () => {
    let result = applyDedupe("unique", emits("a", "b", "a", undefined), {});
    assert.deepEqual(ids(result.emits), ["a", "b", undefined]);
    result = applyDedupe("unique", emits("b", "c"), result.state);
    assert.deepEqual(ids(result.emits), ["c"]);
    const many = emits(...Array.from({ length: UNIQUE_IDS_KEPT }, (_, i) => `n${i}`));
    result = applyDedupe("unique", many, result.state);
    assert.equal(result.state.unique?.length, UNIQUE_IDS_KEPT);
    // "a" fell out of the window of 100, "n99" did not.
    assert.deepEqual(ids(applyDedupe("unique", emits("a", "n99"), result.state).emits), ["a"]);
  });

  it("greatest emits only ids larger than the largest seen (numbers compare as numbers)", () => {
    let result = applyDedupe("greatest", emits(5, 3, 9, 10), {});
    assert.deepEqual(ids(result.emits), [5, 9, 10]);
    assert.equal(result.state.greatest, 10);
    result = applyDedupe("greatest", emits("9", "11"), result.state);
    assert.deepEqual(ids(result.emits), ["11"]);
  });

  it("last emits only what follows the id emitted last, or everything when it is absent", () => {
    let result = applyDedupe("last", emits("a", "b", "c"), {});
    assert.deepEqual(ids(result.emits), ["a", "b", "c"]);
    assert.equal(result.state.last, "c");
    result = applyDedupe("last", emits("b", "c", "d", "e"), result.state);
    assert.deepEqual(ids(result.emits), ["d", "e"]);
    result = applyDedupe("last", emits("x", "y"), result.state);
    assert.deepEqual(ids(result.emits), ["x", "y"]);
  });

  it("no strategy keeps every emit", () => {
    assert.deepEqual(ids(applyDedupe(null, emits("a", "a"), {}).emits), ["a", "a"]);
  });
});
