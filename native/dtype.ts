/**
 * Element types (dtypes): the table generated from native/src/base/dtype.h,
 * PyTorch's type promotion (a JavaScript number is a weak scalar), the
 * default dtype, and the typed arrays that hold each dtype on the host.
 */
import { DType, DTYPE_TABLE as TABLE, DTypeRow } from './generated/dtypes';
import { codedError } from './errors';

export type { DType, DTypeRow } from './generated/dtypes';

// Values are exported as constants, not re-exported: a re-export compiles to an accessor,
// which leaves this module's exports object slow to read for every op that uses it.
/** The dtype table (native/src/base/dtype.h). */
export const DTYPE_TABLE = TABLE;

const BY_NAME = new Map<string, DTypeRow>(DTYPE_TABLE.map((r) => [r.name, r]));

/** Other names PyTorch accepts for a dtype ("float" = float32, "long" = int64, ...). */
const ALIASES: Readonly<Record<string, DType>> = {
  float: 'float32',
  double: 'float64',
  half: 'float16',
  long: 'int64',
  int: 'int32',
  short: 'int16',
};

/** The table row of a dtype. */
export function dtypeInfo(dtype: DType): DTypeRow {
  return BY_NAME.get(dtype) as DTypeRow;
}

const CODES: Readonly<Record<string, number>> = Object.fromEntries(DTYPE_TABLE.map((r) => [r.name, r.code]));

/** The dtype's code in the native addon. */
export function dtypeCode(dtype: DType): number {
  return CODES[dtype];
}

/** Bytes per element. */
export function dtypeSize(dtype: DType): number {
  return (BY_NAME.get(dtype) as DTypeRow).bytes;
}

/** float32, float64, float16, bfloat16. */
export function isFloatingPoint(dtype: DType): boolean {
  return (BY_NAME.get(dtype) as DTypeRow).kind === 'Float';
}

/** True for integer dtypes (uint8 included, bool excluded). */
export function isIntegral(dtype: DType): boolean {
  return (BY_NAME.get(dtype) as DTypeRow).kind === 'Int';
}

/**
 * Checks a dtype name (or alias: "float", "long", "torch.float32") and
 * returns its canonical name; `fallback` when undefined.
 */
export function normalizeDtype(dtype: unknown, fallback?: DType): DType {
  if (dtype === undefined || dtype === null) return fallback ?? getDefaultDtype();
  if (typeof dtype !== 'string') {
    throw codedError('TSGPU_ARG', `expected a dtype name such as "float32" for dtype, got ${typeof dtype}`);
  }
  const name = dtype.startsWith('torch.') ? dtype.slice(6) : dtype;
  if (BY_NAME.has(name)) return name as DType;
  const alias = ALIASES[name];
  if (alias) return alias;
  throw codedError(
    'TSGPU_ARG',
    `expected a dtype (${DTYPE_TABLE.map((r) => r.name).join(', ')}) for dtype, got '${dtype}'`,
  );
}

let defaultDtype: DType = 'float32';

/** The dtype of floating-point tensors made without one (float32 unless changed); torch.get_default_dtype. */
export function getDefaultDtype(): DType {
  return defaultDtype;
}

/** Sets the default floating-point dtype (float32, float64, float16 or bfloat16); torch.set_default_dtype. */
export function setDefaultDtype(dtype: DType): void {
  const d = normalizeDtype(dtype);
  if (!isFloatingPoint(d)) {
    throw codedError('TSGPU_ARG', `expected a floating-point dtype for setDefaultDtype, got ${d}`);
  }
  defaultDtype = d;
}

const KIND_RANK: Readonly<Record<string, number>> = { Bool: 0, Int: 1, Float: 2 };

/**
 * The smallest dtype both `a` and `b` convert to without losing range or
 * kind (torch.promote_types): int32 + float16 -> float16, uint8 + int8 ->
 * int16, float16 + bfloat16 -> float32, bool + x -> x.
 */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  const ra = dtypeInfo(a);
  const rb = dtypeInfo(b);
  if (KIND_RANK[ra.kind] !== KIND_RANK[rb.kind]) return KIND_RANK[ra.kind] > KIND_RANK[rb.kind] ? a : b;
  if (ra.kind === 'Float') {
    if (ra.bytes === rb.bytes) return 'float32'; // float16 with bfloat16
    return ra.bytes > rb.bytes ? a : b;
  }
  // Integers: an unsigned type and a signed one need a signed type wider than the unsigned.
  if (ra.signed === rb.signed) return ra.bytes >= rb.bytes ? a : b;
  const [u, s] = ra.signed ? [rb, ra] : [ra, rb];
  if (s.bytes > u.bytes) return s.name;
  return u.bytes >= 8 ? 'int64' : (DTYPE_TABLE.find((r) => r.kind === 'Int' && r.signed && r.bytes === u.bytes * 2) as DTypeRow).name;
}

/** Something an op may take as an operand: a tensor-like ({dtype, ndim}) or a JavaScript scalar. */
export type Operand = { readonly dtype: DType; readonly ndim: number } | number | boolean;

function scalarDtype(x: number | boolean): DType {
  if (typeof x === 'boolean') return 'bool';
  return Number.isInteger(x) ? 'int64' : getDefaultDtype();
}

function combine(higher: DType | null, lower: DType | null): DType | null {
  if (higher === null) return lower;
  if (lower === null) return higher;
  if (isFloatingPoint(higher)) return higher;
  if (higher === 'bool' || isFloatingPoint(lower)) return promoteTypes(higher, lower);
  return higher;
}

/**
 * The dtype of an op's result over these operands (torch.result_type):
 * tensors with dimensions decide; 0-dim tensors and then JavaScript numbers
 * matter only when they are of a higher kind (bool < integer < float). A
 * number is an integer when Number.isInteger (so `2.0` is the integer 2) and
 * then int64; a fractional number is the default dtype.
 *
 * @example resultType(int32Tensor, 2.5) === 'float32'; resultType(uint8Tensor, 1000) === 'uint8'
 */
export function resultType(...operands: Operand[]): DType {
  let dim: DType | null = null;
  let zero: DType | null = null;
  let wrapped: DType | null = null;
  for (const x of operands) {
    if (typeof x === 'number' || typeof x === 'boolean') {
      const d = scalarDtype(x);
      wrapped = wrapped === null ? d : promoteTypes(wrapped, d);
    } else if (x.ndim === 0) {
      zero = zero === null ? x.dtype : promoteTypes(zero, x.dtype);
    } else {
      dim = dim === null ? x.dtype : promoteTypes(dim, x.dtype);
    }
  }
  const r = combine(dim, combine(zero, wrapped));
  if (r === null) throw codedError('TSGPU_ARG', 'resultType needs at least one operand');
  return r;
}

/** Whether a value of dtype `from` may be written into `to` by an in-place op (torch.can_cast). */
export function canCast(from: DType, to: DType): boolean {
  const rf = KIND_RANK[dtypeInfo(from).kind];
  const rt = KIND_RANK[dtypeInfo(to).kind];
  return rf <= rt;
}

/** The typed array that holds a dtype's elements on the host. */
export type HostArray =
  | Float32Array
  | Float64Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Int32Array
  | BigInt64Array;

type HostArrayCtor = { new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): HostArray; BYTES_PER_ELEMENT: number };

const HOST_ARRAYS: Readonly<Record<DType, HostArrayCtor>> = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array, // IEEE binary16 bits
  bfloat16: Uint16Array, // bfloat16 bits
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  bool: Uint8Array, // 0 or 1
};

/**
 * A typed array over `bytes` for a dtype's raw elements: Uint16Array of bits
 * for float16/bfloat16, BigInt64Array for int64, Uint8Array (0/1) for bool.
 */
export function hostArray(dtype: DType, bytes: ArrayBuffer, byteOffset = 0, length?: number): HostArray {
  const C = HOST_ARRAYS[dtype];
  return new C(bytes, byteOffset, length ?? (bytes.byteLength - byteOffset) / C.BYTES_PER_ELEMENT);
}

// ---------------------------------------------------------------- 16-bit floats on the host

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float16 bits -> number (exact). */
export function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** number -> float16 bits, rounded to nearest even (through float32, as the native conversion). */
export function numberToHalf(x: number): number {
  f32[0] = x;
  let b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  b &= 0x7fffffff;
  if (b >= 0x7f800000) return sign | (b > 0x7f800000 ? 0x7e00 : 0x7c00);
  if (b >= 0x477ff000) return sign | 0x7c00;
  if (b < 0x38800000) {
    if (b < 0x33000000) return sign;
    const e = b >>> 23;
    const m = (b & 0x7fffff) | 0x800000;
    const shift = 126 - e;
    let r = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && r & 1)) r++;
    return sign | r;
  }
  b -= 0x38000000;
  b += 0xfff + ((b >>> 13) & 1);
  return sign | (b >>> 13);
}

/** bfloat16 bits -> number (exact). */
export function bfloat16ToNumber(h: number): number {
  u32[0] = h << 16;
  return f32[0];
}

/** number -> bfloat16 bits, rounded to nearest even. */
export function numberToBfloat16(x: number): number {
  f32[0] = x;
  const b = u32[0];
  if ((b & 0x7fffffff) > 0x7f800000) return ((b >>> 16) | 0x40) & 0xffff;
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}
