/**
 * `torch.safetensors`: Python's `safetensors.torch` functions (saveFile,
 * loadFile) and a look at a file's header without loading it (readHeader).
 * The format is in format.ts, the file I/O in io.ts.
 */
import { DType } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { checkPath, LoadOptions, loadDevice, openFile, readTensors, writeTensors } from './io';

export { LoadOptions } from './io';

/** One tensor of a file, as readHeader describes it. */
export interface TensorInfo {
  /** tsgpu's dtype name ("bfloat16"). */
  dtype: DType;
  shape: number[];
  /** Byte offsets [begin, end) in the data after the header. */
  dataOffsets: [number, number];
}

function checkTensorRecord(op: string, tensors: unknown): [string, Tensor][] {
  if (typeof tensors !== 'object' || tensors === null || Array.isArray(tensors) || tensors instanceof Tensor) {
    throw codedError('TSGPU_ARG', `${op}: expected an object of tensors by name for tensors, got ${tensors === null ? 'null' : Array.isArray(tensors) ? 'an array' : tensors instanceof Tensor ? 'a Tensor' : typeof tensors}`);
  }
  return Object.entries(tensors as Record<string, Tensor>);
}

function checkMetadataArg(op: string, metadata: unknown): Record<string, string> | null {
  if (metadata === undefined || metadata === null) return null;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw codedError('TSGPU_ARG', `${op}: expected an object of strings for metadata, got ${Array.isArray(metadata) ? 'an array' : typeof metadata}`);
  }
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== 'string') throw codedError('TSGPU_ARG', `${op}: expected a string for metadata[${JSON.stringify(k)}], got ${v === null ? 'null' : typeof v}`);
  }
  return metadata as Record<string, string>;
}

/**
 * Writes tensors by name to a safetensors file, as Python's
 * `safetensors.torch.save_file(tensors, filename, metadata)`: the keys as
 * given, in their order, with safetensors' dtype names; `metadata` (strings
 * only) goes to the header's `__metadata__` (none by default). A view is
 * saved as its values; two keys that share memory are each saved in full
 * (safetensors' Python refuses them; loading gives two separate tensors).
 * CUDA tensors are copied to the host as they are written.
 */
export function saveFile(tensors: Record<string, Tensor>, filename: string | URL, metadata?: Record<string, string> | null): void {
  const op = 'safetensors.saveFile';
  const entries = checkTensorRecord(op, tensors);
  const md = checkMetadataArg(op, metadata);
  writeTensors(op, checkPath(op, filename), entries, md);
}

/**
 * The tensors of a safetensors file by name, as Python's
 * `safetensors.torch.load_file(filename, device)`, on `device` (default
 * "cpu"), in the order of their data in the file (JavaScript lists
 * integer-like keys such as "0" first, whatever the order). A truncated or corrupt
 * file throws one error (code TSGPU_SAFETENSORS) naming the file and what is
 * wrong, and allocates nothing.
 */
export function loadFile(filename: string | URL, opts?: LoadOptions): Record<string, Tensor> {
  const op = 'safetensors.loadFile';
  const file = checkPath(op, filename);
  const device = loadDevice(op, opts);
  const f = openFile(op, file);
  try {
    const out: Record<string, Tensor> = {};
    for (const [k, t] of readTensors(f, file, device)) {
      Object.defineProperty(out, k, { value: t, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    f.close();
  }
}

/**
 * A safetensors file's header, checked, without loading any tensor (as
 * Python's `safe_open(f).metadata()` and its keys): the `__metadata__`
 * strings (null when absent) and each tensor's dtype, shape and offsets.
 */
export function readHeader(filename: string | URL): { metadata: Record<string, string> | null; tensors: Record<string, TensorInfo> } {
  const op = 'safetensors.readHeader';
  const file = checkPath(op, filename);
  const f = openFile(op, file);
  f.close();
  const tensors: Record<string, TensorInfo> = {};
  for (const e of f.header.tensors) {
    Object.defineProperty(tensors, e.name, {
      value: { dtype: e.dtype, shape: e.shape, dataOffsets: [e.begin, e.end] },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { metadata: f.header.metadata, tensors };
}
