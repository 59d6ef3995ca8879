/** Device names and argument checks shared by the runtime's modules. */
import { native } from './addon';
import { codedError } from './errors';

/** A device as users write it: "cpu", "cuda", "cuda:N", or a CUDA ordinal. */
export type DeviceLike = string | number;

/**
 * Canonical device name ("cpu" or "cuda:N"). A number N means "cuda:N".
 * Throws a clear error for unknown names, and for CUDA devices when CUDA is
 * unavailable (quoting why).
 */
export function normalizeDevice(device: DeviceLike | undefined, fallback = 'cpu'): string {
  const key = device === undefined || device === null ? fallback : device;
  const known = canonicalNames.get(key);
  if (known !== undefined) return known;
  const name = canonicalize(key);
  canonicalNames.set(key, name); // only names that were accepted are remembered
  return name;
}

// Names users wrote → canonical names. A device's canonical name never
// changes within a process, so each spelling goes to the addon once.
const canonicalNames = new Map<DeviceLike, string>();
const slots = new Map<string, number>();

/** The addon's slot for a canonical device name (created on first use). */
export function deviceSlot(canonical: string): number {
  let slot = slots.get(canonical);
  if (slot === undefined) {
    slot = native.deviceSlot(canonical);
    slots.set(canonical, slot);
  }
  return slot;
}

function canonicalize(device: DeviceLike): string {
  if (typeof device === 'number') {
    if (!Number.isInteger(device) || device < 0) {
      throw codedError('TSGPU_ARG', `expected a device name or a non-negative CUDA index, got ${device}`);
    }
    return native.canonicalDevice(`cuda:${device}`);
  }
  if (typeof device !== 'string') {
    throw codedError('TSGPU_ARG', `expected a device name such as "cpu" or "cuda:0", got ${typeof device}`);
  }
  return native.canonicalDevice(device.trim());
}

/** A shape given as a number or an array; checks every dimension. */
export function normalizeShape(shape: number | readonly number[]): number[] {
  const dims = typeof shape === 'number' ? [shape] : Array.isArray(shape) ? shape.slice() : null;
  if (dims === null) {
    throw codedError('TSGPU_ARG', `expected a number or an array of numbers for shape, got ${typeof shape}`);
  }
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0) {
      const name = typeof shape === 'number' ? 'size' : `shape[${i}]`;
      throw codedError('TSGPU_ARG', `expected a non-negative integer for ${name}, got ${String(d)}`);
    }
  }
  return dims;
}

/** Number of elements of a shape. */
export function numelOf(shape: readonly number[]): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i];
  return n;
}
