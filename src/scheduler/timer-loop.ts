// The scheduler role's loop: checks for due timers every tick and stops on shutdown. Time
// comes from the injected clock, so tests move it by hand; the tick itself is real time.
import type { Ctx } from "../domain/context.js";
import type { JobQueue } from "../queue/contract.js";
import { fireDueTimers } from "./fire-due-timers.js";

export interface TimerLoop {
  name: string;
  stop(): Promise<void>;
}

export function startTimerLoop({ ctx, queue, tickMs = 250 }: { ctx: Ctx; queue: JobQueue; tickMs?: number }): TimerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      while (!stopped && (await fireDueTimers(ctx, queue)).length > 0) {
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
