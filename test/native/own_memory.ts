/**
 * Memory measurements that see only what a test itself makes.
 *
 * Jest runs several test files in one worker process, and the runtime's
 * allocator is process-wide: tensors that earlier tests or files dropped
 * without dispose are freed whenever the garbage collector finds them, which
 * can be in the middle of a measurement of `torch.memory.allocated()`. Two
 * ways out, both here:
 *
 *  - `ownStorages()` records the storages live now; its numbers count only
 *    the storages made after it (live ones, by id), so what the collector
 *    frees of other tests' garbage does not show. Use it for "this op leaves
 *    nothing behind" and "dispose gives it back": a storage that dispose
 *    fails to free stays live and is counted.
 *  - `settleAllocator()` collects every piece of garbage of the process and
 *    checks that nothing more is pending, for the tests of the allocator's
 *    own process-wide statistics. After it, every storage still live is
 *    reachable, so synchronous code that follows sees the counters move only
 *    for what it does itself (the collector cannot free a reachable tensor).
 *    Any `await` after it lets other code run: measure before awaiting.
 */
import * as torch from '../../native/index';
import type { LiveTensorInfo } from '../../native/memory';
import { collectGarbage } from './helpers';

/** The storages a test made since `ownStorages()` was called, still live. */
export interface OwnStorages {
  /** Their rows in `torch.memory.liveTensors()`, oldest first. */
  list(): LiveTensorInfo[];
  /** How many there are. */
  count(): number;
  /** The sum of their `nbytes` (what was asked for, before the allocator rounds it). */
  bytes(): number;
  /** The sum of their sizes rounded up to the allocator's 512-byte blocks, as `allocated()` counts a small request. */
  blockBytes(): number;
}

/** The allocator's smallest block: every request is rounded up to a multiple of it. */
export const kMinBlockSize = 512;

/**
 * Records the storages live on `device` now (default "cpu"; "" for every
 * device) and returns counters of the ones made from now on.
 */
export function ownStorages(device = 'cpu'): OwnStorages {
  const rows = (): LiveTensorInfo[] => (device === '' ? torch.memory.liveTensors() : torch.memory.liveTensors(device));
  const before = new Set(rows().map((r) => r.id));
  const list = () => rows().filter((r) => !before.has(r.id));
  return {
    list,
    count: () => list().length,
    bytes: () => list().reduce((s, r) => s + r.nbytes, 0),
    blockBytes: () => list().reduce((s, r) => s + Math.ceil(r.nbytes / kMinBlockSize) * kMinBlockSize, 0),
  };
}

/**
 * Frees every tensor of this process that nothing references (full garbage
 * collections, their finalizers, then the runtime's sweep) and checks that a
 * further round finds nothing: then the allocator's process-wide counters
 * change only through what the caller does next, synchronously.
 * Throws when the garbage does not settle in 10 rounds.
 */
export async function settleAllocator(): Promise<void> {
  for (let round = 0; round < 10; round++) {
    await collectGarbage();
    const live = torch.memory.liveTensors().length;
    const { freedTensors } = torch.memory.collectGarbage();
    if (freedTensors === 0 && torch.memory.liveTensors().length === live) return;
  }
  throw new Error('settleAllocator: tensors were still being collected after 10 rounds of garbage collection');
}
