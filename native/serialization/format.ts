/**
 * The safetensors file format, without tensors: the dtype names, writing a
 * header, and reading and checking one.
 *
 * A file is an 8-byte little-endian unsigned length N, then N bytes of a
 * UTF-8 JSON object (the header), then the data. The header maps each
 * tensor's name to `{ dtype, shape, data_offsets: [begin, end] }`, offsets in
 * bytes from the start of the data; the key `__metadata__`, when present,
 * maps strings to strings. The tensors' byte ranges follow each other with
 * no gap and no overlap and cover the data to its last byte; each holds the
 * tensor's elements, row-major and little-endian. Writers pad the header with
 * spaces to a multiple of 8 bytes, so that the data starts aligned.
 *
 * parseHeader checks all of this before anything is allocated, so that a
 * loader that passed it reads every byte it needs from where it expects.
 */
import { DType, dtypeSize } from '../dtype';
import { codedError } from '../errors';
import { MAX_DIMS } from '../tensor';

/** safetensors' dtype names for the dtypes tsgpu has. */
export const SAFETENSORS_DTYPES: Readonly<Record<DType, string>> = {
  float64: 'F64',
  float32: 'F32',
  float16: 'F16',
  bfloat16: 'BF16',
  int64: 'I64',
  int32: 'I32',
  int16: 'I16',
  int8: 'I8',
  uint8: 'U8',
  bool: 'BOOL',
};

const FROM_SAFETENSORS = new Map<string, DType>(
  Object.entries(SAFETENSORS_DTYPES).map(([d, s]) => [s, d as DType]),
);

/** Names the format defines that tsgpu has no dtype for (they get their own error). */
const UNSUPPORTED_DTYPES = new Set([
  'U16', 'U32', 'U64', 'F8_E4M3', 'F8_E5M2', 'F8_E4M3FNUZ', 'F8_E5M2FNUZ', 'F8_E8M0', 'F6_E2M3', 'F6_E3M2', 'F4', 'C64',
]);

/** The header key that holds string metadata. */
export const METADATA_KEY = '__metadata__';

/** The largest header the format allows (safetensors' own limit, 100 MB). */
export const MAX_HEADER_BYTES = 100_000_000;

/** One tensor of a header, checked. */
export interface TensorEntry {
  /** Its key in the file. */
  name: string;
  dtype: DType;
  shape: number[];
  /** Byte offsets in the data, [begin, end). */
  begin: number;
  end: number;
}

/** A checked header: the tensors in the order of their data, and the metadata (null when absent). */
export interface Header {
  tensors: TensorEntry[];
  metadata: Record<string, string> | null;
  /** Bytes before the data (8 + the header's length). */
  dataStart: number;
}

/** The error of a file that is not a valid safetensors file (code TSGPU_SAFETENSORS, `path` the file). */
export function formatError(file: string, what: string): Error & { code: string; path: string } {
  const err = codedError('TSGPU_SAFETENSORS', `${JSON.stringify(file)} is not a valid safetensors file: ${what}`) as Error & {
    code: string;
    path: string;
  };
  err.path = file;
  return err;
}

/**
 * The header bytes (length included, padded with spaces to a multiple of 8)
 * for tensors laid out one after the other in the order given.
 */
export function buildHeader(
  tensors: readonly { name: string; dtype: DType; shape: readonly number[] }[],
  metadata: Readonly<Record<string, string>> | null,
): Buffer {
  const header: Record<string, unknown> = {};
  if (metadata !== null) header[METADATA_KEY] = metadata;
  let offset = 0;
  for (const t of tensors) {
    let n = 1;
    for (const d of t.shape) n *= d;
    const nbytes = n * dtypeSize(t.dtype);
    // defineProperty: a key such as "__proto__" is an own key like any other.
    Object.defineProperty(header, t.name, {
      value: { dtype: SAFETENSORS_DTYPES[t.dtype], shape: t.shape.slice(), data_offsets: [offset, offset + nbytes] },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    offset += nbytes;
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Math.ceil(json.length / 8) * 8;
  const out = Buffer.alloc(8 + padded, 0x20);
  out.writeBigUInt64LE(BigInt(padded), 0);
  json.copy(out, 8);
  return out;
}

/**
 * Reads the header's length from the first 8 bytes of a file of `fileSize`
 * bytes, checking it against the file and the format's limit.
 */
export function headerLength(file: string, first: Buffer, fileSize: number): number {
  if (fileSize < 8) {
    throw formatError(file, `the file has ${fileSize} byte${fileSize === 1 ? '' : 's'}, fewer than the 8 of the header's length`);
  }
  const n = first.readBigUInt64LE(0);
  if (n > BigInt(MAX_HEADER_BYTES)) {
    throw formatError(file, `the header's length is ${n} bytes, more than the format's limit of ${MAX_HEADER_BYTES}`);
  }
  const len = Number(n);
  if (len > fileSize - 8) {
    throw formatError(file, `the header's length is ${len} bytes, but the file has only ${fileSize - 8} after the 8-byte length (truncated?)`);
  }
  if (len < 2) throw formatError(file, `the header's length is ${len} byte${len === 1 ? '' : 's'}, too short for a JSON object`);
  return len;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "null", "an array", "a number", ... as messages name what a header holds. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

function isOffset(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function checkEntry(file: string, name: string, raw: unknown): TensorEntry {
  const where = `tensor ${JSON.stringify(name)}`;
  if (!isPlainObject(raw)) throw formatError(file, `${where} is described by ${kindOf(raw)}, not an object`);
  const { dtype: code, shape, data_offsets: offsets } = raw;
  if (typeof code !== 'string') throw formatError(file, `${where} has no dtype name (got ${JSON.stringify(code)})`);
  const dtype = FROM_SAFETENSORS.get(code);
  if (dtype === undefined) {
    if (UNSUPPORTED_DTYPES.has(code)) throw formatError(file, `${where} has dtype ${code}, which tsgpu has no dtype for`);
    throw formatError(file, `${where} has the unknown dtype ${JSON.stringify(code)} (expected one of ${[...FROM_SAFETENSORS.keys()].join(', ')})`);
  }
  if (!Array.isArray(shape) || !shape.every(isOffset)) {
    throw formatError(file, `${where} has the shape ${JSON.stringify(shape)}, not an array of non-negative integers`);
  }
  if (shape.length > MAX_DIMS) throw formatError(file, `${where} has ${shape.length} dimensions; tsgpu tensors have at most ${MAX_DIMS}`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isOffset)) {
    throw formatError(file, `${where} has the data_offsets ${JSON.stringify(offsets)}, not two non-negative integers`);
  }
  const [begin, end] = offsets as number[];
  if (end < begin) throw formatError(file, `${where} ends (byte ${end}) before it begins (byte ${begin})`);
  let numel = 1;
  for (const d of shape as number[]) numel *= d;
  const nbytes = numel * dtypeSize(dtype);
  if (!Number.isSafeInteger(nbytes) || nbytes !== end - begin) {
    throw formatError(
      file,
      `${where} of shape [${(shape as number[]).join(', ')}] and dtype ${code} needs ${Number.isSafeInteger(nbytes) ? nbytes : 'more than 2^53'} bytes, but its data_offsets [${begin}, ${end}] hold ${end - begin}`,
    );
  }
  return { name, dtype, shape: (shape as number[]).slice(), begin, end };
}

function checkMetadata(file: string, raw: unknown): Record<string, string> {
  if (!isPlainObject(raw)) throw formatError(file, `${METADATA_KEY} is ${kindOf(raw)}, not an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') throw formatError(file, `${METADATA_KEY} holds ${kindOf(v)} under ${JSON.stringify(k)}; its values must be strings`);
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Decodes and checks a header: UTF-8 JSON of an object, every entry a known
 * dtype with a shape whose bytes match its offsets, the offsets following
 * each other from 0 with no gap or overlap up to exactly `dataBytes` (the
 * bytes after the header). Throws formatError naming what is wrong.
 */
export function parseHeader(file: string, bytes: Buffer, dataBytes: number): Header {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw formatError(file, 'the header is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw formatError(file, `the header is not valid JSON (${(e as Error).message})`);
  }
  if (!isPlainObject(json)) throw formatError(file, `the header is ${kindOf(json)}, not a JSON object`);
  let metadata: Record<string, string> | null = null;
  const tensors: TensorEntry[] = [];
  for (const [name, raw] of Object.entries(json)) {
    if (name === METADATA_KEY) metadata = checkMetadata(file, raw);
    else tensors.push(checkEntry(file, name, raw));
  }
  // Stable sort: empty tensors at the same offset keep the header's order.
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let pos = 0;
  for (const t of tensors) {
    if (t.begin > pos) {
      throw formatError(file, `bytes ${pos} to ${t.begin} of the data belong to no tensor (a gap before tensor ${JSON.stringify(t.name)}, or a key given twice)`);
    }
    if (t.begin < pos) {
      throw formatError(file, `tensor ${JSON.stringify(t.name)} (bytes ${t.begin} to ${t.end}) overlaps the tensor before it, which ends at byte ${pos}`);
    }
    pos = t.end;
  }
  if (pos > dataBytes) {
    throw formatError(file, `the tensors need ${pos} bytes of data, but the file has only ${dataBytes} after the header (truncated?)`);
  }
  if (pos < dataBytes) {
    throw formatError(file, `the file has ${dataBytes - pos} bytes after the last tensor's data (byte ${pos} of ${dataBytes}) that belong to no tensor`);
  }
  return { tensors, metadata, dataStart: 8 + bytes.length };
}
