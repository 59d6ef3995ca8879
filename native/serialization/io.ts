/**
 * The file I/O of safetensors files that torch.save/torch.load and
 * torch.safetensors share.
 *
 * Writing: each tensor's values (a contiguous copy for a view that is not
 * dense; a CUDA tensor read to the host) go to the file in chunks, into a
 * temporary file beside the target that is renamed onto it at the end, so a
 * failed save leaves any earlier file of that name as it was.
 *
 * Reading: the header is read and checked first (format.ts), before any
 * tensor is allocated; then each tensor is allocated on the device asked
 * for and its bytes read from the file straight into it, in chunks, so a
 * file is never held whole in memory. A failure part way (out of memory,
 * an interrupt) frees the tensors already made: a load gives everything or
 * nothing.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as nodePath from 'path';
import { fileURLToPath } from 'url';
import { native } from '../addon';
import { DeviceLike, normalizeDevice } from '../device';
import { dtypeSize } from '../dtype';
import { codedError } from '../errors';
import { throwIfInterrupted } from '../interrupt';
import { contiguous } from '../ops/copy';
import { emptyTensor, Tensor } from '../tensor';
import { buildHeader, formatError, Header, headerLength, METADATA_KEY, parseHeader, SAFETENSORS_DTYPES } from './format';

/** Bytes moved between a file and a tensor per read or write (bounds the host memory a transfer takes). */
const kChunkBytes = 16 << 20;

/** Where loaded tensors go. */
export interface LoadOptions {
  /** Device of the loaded tensors: "cpu" (default), "cuda", "cuda:N" or a CUDA index. */
  device?: DeviceLike;
  /** PyTorch's name for `device` in torch.load (a device only; `device` wins when both are given). */
  mapLocation?: DeviceLike;
}

function checkLittleEndian(op: string): void {
  if (os.endianness() !== 'LE') {
    throw codedError('TSGPU_UNSUPPORTED', `${op}: safetensors files are little-endian, and this machine is big-endian`);
  }
}

/** Checks a path argument (a string or a file: URL). */
export function checkPath(op: string, file: unknown): string {
  // A URL of any realm (a notebook cell's URL class is not this module's).
  if (typeof file === 'object' && file !== null && typeof (file as URL).href === 'string' && (file as URL).protocol === 'file:') {
    return fileURLToPath((file as URL).href);
  }
  if (typeof file !== 'string' || file === '') {
    throw codedError('TSGPU_ARG', `${op}: expected a file path (a non-empty string) for f, got ${file === '' ? "''" : file === null ? 'null' : typeof file}`);
  }
  return file;
}

/** The device a load puts tensors on, checked before the file is opened. */
export function loadDevice(op: string, opts: LoadOptions | undefined): string {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw codedError('TSGPU_ARG', `${op}: expected an options object such as { device: 'cuda' } for options, got ${opts === null ? 'null' : typeof opts}`);
  }
  return normalizeDevice(opts?.device ?? opts?.mapLocation);
}

/** Prefixes an error that happened while reading or writing `file` with the file, unless it names it already. */
function annotate(err: unknown, verb: string, file: string): unknown {
  // Not `instanceof Error`: Node's own errors may come from another realm (a vm context's caller).
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e === 'object' && e !== null && typeof e.message === 'string' && e.code !== 'TSGPU_SAFETENSORS' && !e.message.includes(file)) {
    e.message = `cannot ${verb} ${JSON.stringify(file)}: ${e.message}`;
  }
  return err;
}

/**
 * Writes `entries` (name, tensor) to `file` in this order with `metadata`.
 * Checks every name and tensor before the file is touched.
 */
export function writeTensors(op: string, file: string, entries: readonly [string, Tensor][], metadata: Record<string, string> | null): void {
  checkLittleEndian(op);
  for (const [name, t] of entries) {
    if (name === METADATA_KEY) throw codedError('TSGPU_ARG', `${op}: ${METADATA_KEY} is the format's own key and cannot name a tensor`);
    if (!(t instanceof Tensor)) {
      throw codedError('TSGPU_ARG', `${op}: expected a Tensor for ${JSON.stringify(name)}, got ${t === null ? 'null' : typeof t}`);
    }
    if (t.isDisposed) throw codedError('TSGPU_DISPOSED', `${op}: the tensor under ${JSON.stringify(name)} was disposed: it can no longer be saved`);
    if (SAFETENSORS_DTYPES[t.dtype] === undefined) throw codedError('TSGPU_ARG', `${op}: no safetensors dtype for ${t.dtype}`);
  }
  const header = buildHeader(entries.map(([name, t]) => ({ name, dtype: t.dtype, shape: t.shape })), metadata);
  // An earlier file is replaced as writing to it would: through a symbolic link, keeping its mode.
  let target = file;
  let mode: number | null = null;
  try {
    target = fs.realpathSync(file);
    mode = fs.statSync(target).mode & 0o7777;
  } catch {
    // no file there yet
  }
  const tmp = nodePath.join(nodePath.dirname(nodePath.resolve(target)), `.${nodePath.basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let fd = -1;
  try {
    fd = fs.openSync(tmp, 'wx', 0o666);
    if (mode !== null) fs.fchmodSync(fd, mode);
    writeFully(fd, header);
    for (const [, t] of entries) writeTensorData(fd, t, file);
    fs.closeSync(fd);
    fd = -1;
    fs.renameSync(tmp, target);
  } catch (err) {
    if (fd >= 0) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw annotate(err, 'write', file);
  }
}

function writeFully(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

/** A tensor's elements, row-major, appended to the file (an interrupt stops it between chunks). */
function writeTensorData(fd: number, t: Tensor, file: string): void {
  const nbytes = t.numel * dtypeSize(t.dtype);
  if (nbytes === 0) return;
  const src = contiguous(t);
  try {
    const base = src.storageOffset() * dtypeSize(t.dtype);
    const handle = src.handle();
    for (let off = 0; off < nbytes; off += kChunkBytes) {
      throwIfInterrupted(`writing ${JSON.stringify(file)}`);
      const n = Math.min(kChunkBytes, nbytes - off);
      writeFully(fd, new Uint8Array(native.readBytes(handle, base + off, n)));
    }
  } finally {
    if (src !== t) src.dispose();
  }
}

/** An open file and its checked header; close() when done. */
export interface OpenFile {
  fd: number;
  header: Header;
  close(): void;
}

function readFully(file: string, fd: number, buf: Uint8Array, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const n = fs.readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw formatError(file, `the file ended at byte ${position + done} while ${position + buf.length} were expected (it changed while being read?)`);
    done += n;
  }
}

/** Opens `file` and reads and checks its header (nothing is allocated). */
export function openFile(op: string, file: string): OpenFile {
  checkLittleEndian(op);
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const first = Buffer.alloc(8);
    if (size >= 8) readFully(file, fd, first, 0);
    const len = headerLength(file, first, size);
    const bytes = Buffer.allocUnsafe(len);
    readFully(file, fd, bytes, 8);
    const header = parseHeader(file, bytes, size - 8 - len);
    return { fd, header, close: () => fs.closeSync(fd) };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/**
 * The tensors of an open file on `device`, by name, in the order of their
 * data. Frees every tensor it made when any read or allocation fails, or
 * an interrupt (checked between chunks) stops it.
 */
export function readTensors(f: OpenFile, file: string, device: string): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  let largest = 0;
  for (const e of f.header.tensors) largest = Math.max(largest, e.end - e.begin);
  const chunk = Buffer.allocUnsafe(Math.min(kChunkBytes, largest));
  try {
    for (const e of f.header.tensors) {
      const t = emptyTensor(e.shape, e.dtype, device);
      out.set(e.name, t);
      const nbytes = e.end - e.begin;
      const handle = nbytes > 0 ? t.handle() : -1;
      for (let off = 0; off < nbytes; off += kChunkBytes) {
        throwIfInterrupted(`reading ${JSON.stringify(file)}`);
        const n = Math.min(kChunkBytes, nbytes - off);
        const view = chunk.subarray(0, n);
        readFully(file, f.fd, view, f.header.dataStart + e.begin + off);
        native.writeBytes(handle, off, view);
      }
    }
  } catch (err) {
    for (const t of out.values()) t.dispose();
    throw annotate(err, 'load', file);
  }
  return out;
}
