/**
 * Argument checks and the factory options (device, dtype) shared by the
 * layers' constructors.
 */
import { DType } from '../../dtype';
import { DeviceLike } from '../../device';
import { codedError } from '../../errors';
import { TensorOptions } from '../../ops/creation';

/** Where a layer makes its parameters (PyTorch's factory_kwargs). */
export interface FactoryOptions {
  /** Device of the parameters (default cpu). */
  device?: DeviceLike;
  /** Dtype of the floating parameters (default torch.getDefaultDtype()). */
  dtype?: DType;
}

/** The device and dtype of a layer's options, as creation options. */
export function factoryOptions(_op: string, opts: FactoryOptions): TensorOptions {
  return { device: opts.device, dtype: opts.dtype };
}

/** `v` if it is an integer > 0 (>= 0 when zeroOk), else an argument error. */
export function checkPositiveInt(op: string, name: string, v: unknown, zeroOk = false): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < (zeroOk ? 0 : 1)) {
    throw codedError('TSGPU_ARG', `${op}: expected ${zeroOk ? 'a non-negative' : 'a positive'} integer for ${name}, got ${String(v)}`);
  }
  return v;
}

/** `v` if it is a probability in [0, 1], else PyTorch's error. */
export function checkProbability(op: string, name: string, v: unknown): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
    throw codedError('TSGPU_ARG', `${op}: ${name} probability has to be between 0 and 1, but got ${String(v)}`);
  }
  return v;
}

/** A boolean as Python prints it (for extraRepr). */
export function pyBool(b: boolean): string {
  return b ? 'True' : 'False';
}

/** A shape as a Python tuple, e.g. "(8,)" (for extraRepr). */
export function pyTuple(s: readonly number[]): string {
  return s.length === 1 ? `(${s[0]},)` : `(${s.join(', ')})`;
}
