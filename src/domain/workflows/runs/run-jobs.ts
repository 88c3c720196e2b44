// The queue job that wakes a paused run: when its delay or rerun delay ends, when its suspend
// times out, or when its resume URL was requested. `seq` is the run's wake_seq it was made for:
// a run that moved on since (resumed, cancelled) ignores it.
export const WORKFLOW_WAKE_JOB = "workflow.wake";

export interface WakeJob {
  userId: string;
  runId: string;
  seq: number;
  /** "watch": a run driven inside an HTTP request, to be taken over if its process died (adopt-run.ts). */
  reason: "timer" | "resume" | "watch";
}

/** How long past a step's time limit a driver without a job counts as alive. */
export const DRIVER_GRACE_MS = 60_000;

/** Key of the job or delivery that drives a run (workflow_runs.origin, .driver). */
export const jobOrigin = (jobId: string) => `j:${jobId}`;
export const deliveryOrigin = (deliveryId: string) => `d:${deliveryId}`;
