/**
 * The part of the `torch` runtime that magics use, typed by the runtime's
 * own TypeScript API (types only: magics get the object from the context,
 * context.ts). A file of its own so that the timeline (timeline.ts), which
 * the context names, can use it without importing the context.
 */
import type * as Runtime from "../native/index";

/** `torch.memory`, `torch.cuda` and `torch.Tensor`, as cells see them. */
export type RuntimeApi = Pick<typeof Runtime, "memory" | "cuda" | "Tensor">;
