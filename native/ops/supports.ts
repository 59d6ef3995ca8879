/**
 * supports(op, device, dtype): whether an op of the op list can run on a
 * device with a given dtype, asked before the call (ggml-backend's
 * supports_op). It answers from the op list as the addon parsed it: the
 * device kinds with a registered kernel and the dtypes the op's first tensor
 * input may have. It says nothing of whether the device is present (that is
 * torch.cuda.isAvailable()), nor of limits a kernel checks on the call itself
 * (sizes, index ranges). opSupport(op) gives the same facts as lists, for
 * messages: "no cuda kernel for X; cpu has one".
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
