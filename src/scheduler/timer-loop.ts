// The scheduler role's loop: checks for due timers every tick and stops on shutdown. Time
// comes from the injected clock, so tests move it by hand; the tick itself is real time.
// Timers due within the lookahead are claimed early and queued for their due time, so a run
// starts on time as long as the loop comes round (tick + a claim pass) within the lookahead.
import type { Ctx } from "../domain/context.js";
import type { JobQueue } from "../queue/job-queue.js";
import { fireDueTimers } from "./fire-due-timers.js";

export interface TimerLoop {
  name: string;
  stop(): Promise<void>;
}

export const TIMER_TICK_MS = 250;
export const TIMER_LOOKAHEAD_MS = 1000;

export function startTimerLoop({
  ctx,
  queue,
  tickMs = TIMER_TICK_MS,
  lookaheadMs = TIMER_LOOKAHEAD_MS,
}: {
  ctx: Ctx;
  queue: JobQueue;
  tickMs?: number;
  lookaheadMs?: number;
}): TimerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      while (!stopped && (await fireDueTimers(ctx, queue, { lookaheadMs })).length > 0) {
        // a full batch may leave more due timers: go on at once
      }
    } catch (error) {
      if (!stopped) ctx.logger.error({ err: error }, "timer tick failed");
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), tickMs);
  };
  running = tick();
  return {
    name: "scheduler",
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
