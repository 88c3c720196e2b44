// One job type's bookkeeping in a worker (type-places.ts), without a database: which jobs a
// claim runs, holds for their key or queues here, which job runs when one finishes, what a
// hand-over may take, and when the claim loop must look again.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JobsTable } from "../../src/store/schema.js";
import { TypePlaces, type Decision } from "../../src/queue/type-places.js";

let ids = 0;
function row(key: string | null = null): JobsTable {
  const id = `job_${++ids}`;
  return {
    id,
    type: "t",
    payload: "{}",
    user_id: null,
    concurrency_key: key,
    run_at: 0,
    attempts: 1,
    lease_token: "tok",
    locked_until: 1,
    last_error: null,
    created_at: 0,
  };
}

/** The decisions as short strings: "announce job_1", "run job_1 k", "wake", ... */
const show = (decisions: Decision[]) =>
  decisions.map((d) =>
    d.kind === "announce" ? `announce ${d.row.id}` : d.kind === "run" ? `run ${d.row.id}${d.key ? ` ${d.key}` : ""}` : d.kind,
  );

describe("type places", () => {
  it("a claim asks for the free places plus room to queue here; the rest of its rows wait queued here", () => {
    const places = new TypePlaces(2, 0);
    const plan = places.planClaim(null)!;
    assert.deepEqual({ free: plan.free, limit: plan.limit }, { free: 2, limit: 4 });
    const [a, b, c] = [row(), row(), row()];
    assert.deepEqual(show(places.claimed(plan, [a, b, c])), [`announce ${a.id}`, `run ${a.id}`, `announce ${b.id}`, `run ${b.id}`]);
    assert.equal(places.queuedHereCount, 1);
    assert.equal(places.drained, true, "fewer than it asked for: nothing left in the database");
    assert.equal(places.planClaim(null), undefined, "no place free: no claim");
    // A finished job makes room for the one queued here, without waking the loop.
    assert.deepEqual(show(places.finished(null, true)), [`announce ${c.id}`, `run ${c.id}`]);
    assert.equal(places.queuedHereCount, 0);
  });

  it("a full claim asks to claim again at once; one that overlapped an addition does not mark the type drained", () => {
    const places = new TypePlaces(1, 0);
    const plan = places.planClaim(null)!;
    places.jobsAdded();
    assert.deepEqual(show(places.claimed(plan, [row(), row()])).at(-1), "claim-again");
    assert.equal(places.drained, false);
    const again = new TypePlaces(1, 0);
    const short = again.planClaim(null)!;
    again.jobsAdded();
    again.claimed(short, []);
    assert.equal(again.drained, false, "an addition during the claim may have been missed by it");
  });

  it("holds a claimed job beyond its key's limit until a job of that key finishes, then runs it without announcing it again", () => {
    const places = new TypePlaces(4, 1);
    const [a, b] = [row("k"), row("k")];
    const plan = places.planClaim(null)!;
    assert.equal(plan.limit, 4, "types with per-key limits queue nothing here");
    assert.deepEqual(show(places.claimed(plan, [a, b])), [`announce ${a.id}`, `run ${a.id} k`, `announce ${b.id}`, "recheck-next-due"]);
    assert.deepEqual(places.busyKeys(), ["k"]);
    assert.equal(places.planClaim(new Set(["k"])), undefined, "new jobs only of a busy key: nothing to claim");
    assert.ok(places.planClaim(new Set(["k", "other"])));
    // Its next job takes the place: the key stays at its limit, nothing more to claim for it.
    assert.deepEqual(show(places.releaseKey("k")), [`run ${b.id} k`]);
    assert.deepEqual(show(places.finished(null, true)), [], "released early: finishing frees only the type's place");
    // The key was at its limit and frees: a claim may find more of it.
    assert.deepEqual(show(places.finished("k", true)), ["wake"]);
    assert.deepEqual(places.busyKeys(), []);
  });

  it("a finished job of a full type that was not drained wakes the loop; of a drained one, it does not", () => {
    const places = new TypePlaces(1, 0);
    places.claimed(places.planClaim(null)!, [row(), row()]); // full: jobs may be left in the database
    places.takeQueuedHere();
    assert.deepEqual(show(places.finished(null, true)), ["wake"]);
    places.claimed(places.planClaim(null)!, [row()]); // short: drained
    assert.deepEqual(show(places.finished(null, true)), []);
  });

  it("takes hand-overs only when drained: a free place runs the job, a full one queues it here while there is room", () => {
    const places = new TypePlaces(1, 0);
    const first = row();
    assert.equal(places.reserve(first), false, "jobs in the database go first");
    places.claimed(places.planClaim(null)!, []);
    assert.equal(places.reserve(first), true);
    assert.deepEqual(show(places.startReserved(first)), [`announce ${first.id}`, `run ${first.id}`]);
    const second = row();
    assert.equal(places.reserve(second), true, "queued here: one spot per place");
    assert.equal(places.reserve(row()), false, "no room left");
    assert.deepEqual(show(places.startReserved(second)), [], "the place is still taken");
    assert.equal(places.queuedHereCount, 1);
    assert.deepEqual(show(places.finished(null, true)), [`announce ${second.id}`, `run ${second.id}`]);
  });

  it("a rolled-back hand-over gives its place and its key back and wakes the loop", () => {
    const places = new TypePlaces(2, 1);
    places.claimed(places.planClaim(null)!, []);
    const job = row("k");
    assert.equal(places.reserve(job), true);
    assert.equal(places.reserve(row("k")), false, "its key is at its limit");
    assert.deepEqual(show(places.releaseReserved(job)), ["wake"]);
    assert.equal(places.running, 0);
    assert.deepEqual(places.busyKeys(), []);
  });

  it("a stopping queue starts nothing queued here, and takes those jobs out to return them", () => {
    const places = new TypePlaces(1, 0);
    const [a, b] = [row(), row()];
    places.claimed(places.planClaim(null)!, [a, b]);
    assert.deepEqual(show(places.finished(null, false)), ["wake"]);
    assert.deepEqual(places.takeQueuedHere(), [b]);
    assert.equal(places.queuedHereCount, 0);
  });
});
