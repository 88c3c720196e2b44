// Bounds on npm installs, which run outside every runner's cgroup: at most `total` npm
// processes at once in this process, at most `perAccount` of one account, and at most
// `perDay` started for one account per UTC day (a package found in the cache never starts one
// and never counts). A create that needs an install while its account (or the host) is at the
// limit waits its turn, as a user would expect of one slow create, but only so long and only
// so many deep: past `maxWaitingPerAccount` waiting or `waitMs` waited it is a 429.
import { ServiceError } from "../../lib/errors.js";

export interface InstallSlotsOptions {
  total: number;
  perAccount: number;
  perDay: number;
  maxWaitingPerAccount: number;
  waitMs: number;
  now?: () => number;
}

export interface InstallSlots {
  /** Runs `install` once a slot is free; `account` undefined is the operator's own install (registry packages). */
  run<T>(account: string | undefined, install: () => Promise<T>): Promise<T>;
  /** npm processes running now (tests, metrics). */
  readonly running: number;
}

const DAY_MS = 86_400_000;

interface Waiter {
  account: string | undefined;
  start(): void;
}

export function createInstallSlots(options: InstallSlotsOptions): InstallSlots {
  const now = options.now ?? Date.now;
  const runningByAccount = new Map<string, number>();
  const waitingByAccount = new Map<string, number>();
  const startedToday = new Map<string, number>();
  let day = Math.floor(now() / DAY_MS);
  let running = 0;
  const queue: Waiter[] = [];

  const add = (map: Map<string, number>, key: string, delta: number) => {
    const value = (map.get(key) ?? 0) + delta;
    if (value === 0) map.delete(key);
    else map.set(key, value);
  };
  const fits = (account: string | undefined) =>
    running < options.total && (account === undefined || (runningByAccount.get(account) ?? 0) < options.perAccount);

  /** Refuses an account at its daily number of installs; `count` when one starts. */
  function checkDay(account: string, count: boolean): void {
    const today = Math.floor(now() / DAY_MS);
    if (today !== day) {
      day = today;
      startedToday.clear();
    }
    const started = startedToday.get(account) ?? 0;
    if (started >= options.perDay) {
      const retryAfterSeconds = Math.ceil(((today + 1) * DAY_MS - now()) / 1000);
      throw new ServiceError(
        "LIMIT_EXCEEDED",
        `this account started ${started} npm installs today, the most allowed (SLUICE_NPM_INSTALLS_PER_DAY); packages already installed can still be used`,
        { retryAfterSeconds },
      );
    }
    if (count) startedToday.set(account, started + 1);
  }

  function take(account: string | undefined): void {
    running++;
    if (account !== undefined) add(runningByAccount, account, 1);
  }

  function release(account: string | undefined): void {
    running--;
    if (account !== undefined) add(runningByAccount, account, -1);
    // First come, first served among those that fit: one account's line does not hold up another's.
    for (let i = 0; i < queue.length && running < options.total;) {
      const waiter = queue[i]!;
      if (fits(waiter.account)) {
        queue.splice(i, 1);
        waiter.start();
      } else {
        i++;
      }
    }
  }

  async function slot(account: string | undefined): Promise<void> {
    if (fits(account) && queue.length === 0) return take(account);
    if (account !== undefined && (waitingByAccount.get(account) ?? 0) >= options.maxWaitingPerAccount) {
      throw new ServiceError(
        "LIMIT_EXCEEDED",
        `this account already has ${options.maxWaitingPerAccount} npm installs waiting; retry when they are done`,
        { retryAfterSeconds: 10 },
      );
    }
    if (account !== undefined) add(waitingByAccount, account, 1);
    try {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          account,
          start: () => {
            clearTimeout(timer);
            take(account);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(
            new ServiceError(
              "LIMIT_EXCEEDED",
              `npm installs are busy on this host (waited ${Math.round(options.waitMs / 1000)} s for a turn); retry shortly`,
              { retryAfterSeconds: 30 },
            ),
          );
        }, options.waitMs);
        timer.unref();
        queue.push(waiter);
      });
    } finally {
      if (account !== undefined) add(waitingByAccount, account, -1);
    }
  }

  return {
    get running() {
      return running;
    },
    async run(account, install) {
      if (account !== undefined) checkDay(account, false);
      await slot(account);
      try {
        if (account !== undefined) checkDay(account, true);
        return await install();
      } finally {
        release(account);
      }
    },
  };
}
