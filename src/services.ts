// Everything the transports and workers need, built once by the composition root (main.ts).
import type { Ctx } from "./domain/context.js";
import type { Store } from "./store/store.js";

export interface Services {
  ctx: Ctx;
  store: Store;
}
