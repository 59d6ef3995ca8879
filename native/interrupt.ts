/**
 * Interrupting long ops. A host that runs user code (a notebook kernel)
 * shares a flag: an Int32Array, usually over a SharedArrayBuffer, whose
 * element 0 another thread sets to nonzero to interrupt. Long CPU ops check
 * it between chunks and stop; any op checks it when it returns. Either way
 * the op throws an error with code TSGPU_INTERRUPTED.
 *
 * The flag is given with setInterruptFlag(), or put by the host on
 * `globalThis[Symbol.for("tsgpu.interruptFlag")]` before the runtime's first op.
 */
import { native } from './addon';
import { codedError } from './errors';

const globalKey = Symbol.for('tsgpu.interruptFlag');
let flag: Int32Array | null = null;
let explicit = false;
let looked = false;

/** Sets (or with null removes) the interrupt flag. */
export function setInterruptFlag(f: Int32Array | null): void {
  if (f !== null && !(f instanceof Int32Array)) {
    throw codedError('TSGPU_ARG', `expected an Int32Array or null for flag, got ${typeof f}`);
  }
  native.setInterruptFlag(f);
  flag = f;
  explicit = true;
}

/** The flag in use (looking once for the host's global flag). */
function current(): Int32Array | null {
  if (flag === null && !explicit && !looked) {
    looked = true; // hosts set the global before their user code runs its first op
    const g = (globalThis as Record<symbol, unknown>)[globalKey];
    if (g instanceof Int32Array) {
      native.setInterruptFlag(g);
      flag = g;
    }
  }
  return flag;
}

/** True while the flag is set (an interrupt is pending). */
export function interrupted(): boolean {
  const f = current();
  return f !== null && Atomics.load(f, 0) !== 0;
}

/** Throws TSGPU_INTERRUPTED ("<op>: interrupted") when the flag is set. */
export function throwIfInterrupted(op: string): void {
  if (interrupted()) throw codedError('TSGPU_INTERRUPTED', `${op}: interrupted`);
}

/** Makes sure the native side knows the host's flag before a long op starts. */
export function armInterrupt(): void {
  current();
}
