/**
 * Questions about dtypes, as PyTorch's: torch.finfo (the limits of a floating
 * dtype), torch.iinfo (of an integer dtype), torch.isFloatingPoint of a
 * tensor or a dtype, and Tensor.isFloatingPoint().
 */
import { DType, getDefaultDtype, isFloatingPoint as dtypeIsFloating, normalizeDtype } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';

/** torch.finfo: the numerical limits of a floating dtype. */
export interface FInfo {
  /** Bits of one element. */
  readonly bits: number;
  /** The difference between 1 and the next representable number. */
  readonly eps: number;
  /** The largest finite number. */
  readonly max: number;
  /** The most negative finite number (-max). */
  readonly min: number;
  /** The smallest positive normal number. */
  readonly tiny: number;
  /** Same as tiny (PyTorch's smallest_normal). */
  readonly smallestNormal: number;
  /** The approximate decimal resolution: 10^-(decimal digits of precision). */
  readonly resolution: number;
  /** The dtype described. */
  readonly dtype: DType;
}

/** torch.iinfo: the limits of an integer dtype (bigint for int64, whose limits a number cannot hold exactly). */
export interface IInfo {
  readonly bits: number;
  readonly min: number | bigint;
  readonly max: number | bigint;
  readonly dtype: DType;
}

const FINFO: Partial<Record<DType, Omit<FInfo, 'min' | 'smallestNormal' | 'dtype'>>> = {
  float32: { bits: 32, eps: 2 ** -23, max: (2 - 2 ** -23) * 2 ** 127, tiny: 2 ** -126, resolution: 1e-6 },
  float64: { bits: 64, eps: 2 ** -52, max: Number.MAX_VALUE, tiny: 2 ** -1022, resolution: 1e-15 },
  float16: { bits: 16, eps: 2 ** -10, max: 65504, tiny: 2 ** -14, resolution: 1e-3 },
  bfloat16: { bits: 16, eps: 2 ** -7, max: (2 - 2 ** -7) * 2 ** 127, tiny: 2 ** -126, resolution: 0.01 },
};

const IINFO: Partial<Record<DType, Omit<IInfo, 'dtype'>>> = {
  uint8: { bits: 8, min: 0, max: 255 },
  int8: { bits: 8, min: -128, max: 127 },
  int16: { bits: 16, min: -32768, max: 32767 },
  int32: { bits: 32, min: -2147483648, max: 2147483647 },
  int64: { bits: 64, min: -(2n ** 63n), max: 2n ** 63n - 1n },
};

/** The limits of a floating dtype (default: the default dtype); integer dtypes are refused, as PyTorch's. */
export function finfo(dtype?: DType): FInfo {
  const d = dtype === undefined ? getDefaultDtype() : normalizeDtype(dtype);
  const row = FINFO[d];
  if (row === undefined) throw codedError('TSGPU_ARG', `finfo: torch.finfo() requires a floating point input type, got ${d}; use torch.iinfo to handle '${d}'`);
  return Object.freeze({ ...row, min: -row.max, smallestNormal: row.tiny, dtype: d });
}

/** The limits of an integer dtype; floating dtypes and bool are refused, as PyTorch's. */
export function iinfo(dtype: DType): IInfo {
  const d = normalizeDtype(dtype);
  const row = IINFO[d];
  if (row === undefined) throw codedError('TSGPU_ARG', `iinfo: torch.iinfo() requires an integer input type, got ${d}; use torch.finfo to handle '${d}'`);
  return Object.freeze({ ...row, dtype: d });
}

/** Whether a tensor's dtype (or a dtype) is floating point: torch.is_floating_point(tensor). */
export function isFloatingPoint(x: Tensor | DType): boolean {
  if (x instanceof Tensor) return dtypeIsFloating(x.dtype);
  if (typeof x === 'string') return dtypeIsFloating(normalizeDtype(x));
  throw codedError('TSGPU_ARG', `isFloatingPoint: expected a Tensor (or a dtype) for input, got ${x === null ? 'null' : typeof x}`);
}

declare module '../tensor' {
  interface Tensor {
    /** Whether the dtype is floating point (float32, float64, float16, bfloat16). */
    isFloatingPoint(): boolean;
  }
}

Tensor.prototype.isFloatingPoint = function (this: Tensor) {
  return dtypeIsFloating(this.dtype);
};
