/**
 * supports(op, device, dtype): whether an op of the op list can run on a
 * device with a given dtype, asked before the call (ggml-backend's
 * supports_op). It answers from the op list as the addon parsed it: the
 * device kinds with a registered kernel and the dtypes the op's first tensor
 * input may have. It says nothing of whether the device is present (that is
 * torch.cuda.isAvailable()), nor of limits a kernel checks on the call itself
 * (sizes, index ranges). opSupport(op) gives the same facts as lists, and
 * unsupportedError() turns them into the message of every op that refuses a
 * dtype on a device: "no int64 gemm on cuda; cpu has one".
 */
import { native } from '../addon';
import { DType } from '../dtype';
import { DeviceLike } from '../device';
import { codedError } from '../errors';

/** What the op list says of one op. */
export interface OpSupport {
  /** Device kinds with a kernel ("cpu", "cuda"). */
  devices: string[];
  /** Dtypes the op's first tensor input may have (the output's when it has no input). */
  dtypes: DType[];
}

let table: Map<string, OpSupport> | null = null;

function ops(): Map<string, OpSupport> {
  table ??= new Map(native.opList().map((o) => [o.name, { devices: [...o.kernels], dtypes: [...o.accepts] as DType[] }]));
  return table;
}

/** The devices and dtypes of op `op` (a name of the op list), or null when there is no such op. */
export function opSupport(op: string): OpSupport | null {
  const s = ops().get(op);
  return s === undefined ? null : { devices: [...s.devices], dtypes: [...s.dtypes] };
}

/**
 * Whether op `op` has a kernel for `device`'s kind ("cpu", "cuda:1" → cuda)
 * and accepts `dtype`. An op name the op list does not have is an error
 * (the names are those of torch.opList(), e.g. "gemm" for matmul).
 */
export function supports(op: string, device: DeviceLike, dtype: DType): boolean {
  if (typeof op !== 'string') throw codedError('TSGPU_ARG', `supports: expected an op name for op, got ${typeof op}`);
  const s = ops().get(op);
  if (s === undefined) throw codedError('TSGPU_ARG', `supports: no op named '${op}' in the op list`);
  const kind = deviceKind(device);
  return s.devices.includes(kind) && s.dtypes.includes(dtype);
}

/** "cpu" or "cuda" of a device name or CUDA index, present or not ("cuda:1" and 1 are cuda). */
function deviceKind(device: DeviceLike): string {
  if (typeof device === 'number' && Number.isInteger(device) && device >= 0) return 'cuda';
  const m = typeof device === 'string' ? /^\s*(cpu|cuda)(:\d+)?\s*$/.exec(device) : null;
  if (m === null) throw codedError('TSGPU_ARG', `supports: expected a device such as "cpu", "cuda" or "cuda:0" for device, got ${JSON.stringify(device)}`);
  return m[1];
}

/** The op list's names, in order (what supports() and opSupport() take). */
export function opList(): string[] {
  return [...ops().keys()];
}

/** The device kinds a message may name, in this order. */
const DEVICE_KINDS = ['cpu', 'cuda'] as const;

/** "a, b or c". */
function orList(xs: readonly string[]): string {
  return xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/** Options of unsupportedError. */
export interface UnsupportedOptions {
  /** The refusal in PyTorch's words, put first (`"addmm_cuda" not implemented for 'Long'`). */
  reason?: string;
  /** Dtypes a device kind computes without the op's kernel (matmul's integer products on cpu, composed of mul and sum). */
  composed?: Partial<Record<string, readonly DType[]>>;
  /** What the user can do, put last. */
  hint?: string;
}

/**
 * The error (TSGPU_UNSUPPORTED) of function `fn` refusing `dtype` on `device`
 * because op `op` of the op list, which it runs, has no kernel for them. The
 * message is written from what supports() answers, so it follows the op
 * list: `fn: [reason: ]no <dtype> <op> on <kind>; ` and then the device kinds
 * that do have one ("cpu has one"), or, where none has, the dtypes the op
 * takes on this kind; then the hint.
 * @example unsupportedError('matmul', 'gemm', 'cuda:0', 'int64', { composed: { cpu: ['int64'] } })
 *   // matmul: no int64 gemm on cuda; cpu has one
 */
export function unsupportedError(fn: string, op: string, device: string, dtype: DType, opts: UnsupportedOptions = {}): Error {
  const s = ops().get(op);
  if (s === undefined) throw codedError('TSGPU_ARG', `unsupportedError: no op named '${op}' in the op list`);
  const kind = deviceKind(device);
  const takes = (k: string, d: DType): boolean => (s.devices.includes(k) && s.dtypes.includes(d)) || (opts.composed?.[k]?.includes(d) ?? false);
  const others = DEVICE_KINDS.filter((k) => k !== kind && takes(k, dtype));
  let where: string;
  if (others.length > 0) {
    where = `${others.join(' and ')} ${others.length > 1 ? 'have' : 'has'} one`;
  } else {
    const here = opSupport(op)!.dtypes.filter((d) => s.devices.includes(kind));
    for (const d of opts.composed?.[kind] ?? []) if (!here.includes(d)) here.push(d);
    where = here.length > 0 ? `no device has one (${op} takes ${orList(here)} on ${kind})` : `no device has one (${op} has no ${kind} kernel)`;
  }
  const reason = opts.reason ? `${opts.reason}: ` : '';
  const hint = opts.hint ? `; ${opts.hint}` : '';
  return codedError('TSGPU_UNSUPPORTED', `${fn}: ${reason}no ${dtype} ${op} on ${kind}; ${where}${hint}`);
}
