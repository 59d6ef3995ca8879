/**
 * torch.autocast: inside a region, ops of autocast's lists (policy.ts) cast
 * their floating tensor arguments first — matmul and linear to the region's
 * float16 or bfloat16, softmax and the losses to float32 — so a float32 model
 * runs its matrix products in the lower precision with no change to its code.
 *
 *   const loss = torch.autocast('cuda', { dtype: 'bfloat16' }, () => model.forward(x).crossEntropy(y));
 *
 * Regions nest (an inner `{ enabled: false }` turns casting off inside) and
 * are per device type. The lower-precision copies of leaf tensors that
 * require grad (parameters) are cached for the outermost region's duration,
 * as PyTorch does, and freed when it ends; while they live the allocator
 * counts them. Only the ops' out-of-place forms cast (in-place ops run as they
 * are); float64 inputs are never cast.
 */
import { DType, isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { isGradEnabled } from '../autograd/grad_mode';
import { CastPolicy, castPolicy } from './policy';

type DeviceType = 'cuda' | 'cpu';

/** Options of autocast. */
export interface AutocastOptions {
  /** The lower precision (default: float16 on cuda, bfloat16 on cpu). */
  dtype?: 'float16' | 'bfloat16';
  /** Whether casting is on in the region (default true). */
  enabled?: boolean;
  /** Cache the casts of parameters for the region (default true). */
  cacheEnabled?: boolean;
}

interface State {
  enabled: boolean;
  dtype: 'float16' | 'bfloat16';
  cache: boolean;
}

const state: Record<DeviceType, State> = {
  cuda: { enabled: false, dtype: 'float16', cache: true },
  cpu: { enabled: false, dtype: 'bfloat16', cache: true },
};
let depth = 0;
const castCache = new Map<Tensor, Tensor>();

/** Whether autocast is on for `deviceType` (PyTorch's torch.is_autocast_enabled(device_type)). */
export function isAutocastEnabled(deviceType: DeviceType = 'cuda'): boolean {
  return state[deviceType].enabled;
}

/** The lower precision of the current region on `deviceType` (torch.get_autocast_dtype). */
export function getAutocastDtype(deviceType: DeviceType = 'cuda'): DType {
  return state[deviceType].dtype;
}

/** Restores the previous autocast state when disposed (`using`). */
export class AutocastGuard implements Disposable {
  private done = false;
  constructor(private readonly deviceType: DeviceType, private readonly prev: State) {}
  [Symbol.dispose](): void {
    if (this.done) return;
    this.done = true;
    state[this.deviceType] = this.prev;
    leave();
  }
  /** Same as [Symbol.dispose](). */
  dispose(): void {
    this[Symbol.dispose]();
  }
}

function leave(): void {
  if (--depth > 0) return;
  for (const t of castCache.values()) t.dispose();
  castCache.clear();
}

function enter(deviceType: DeviceType, opts: AutocastOptions): State {
  if (deviceType !== 'cuda' && deviceType !== 'cpu') {
    throw codedError('TSGPU_ARG', `autocast: expected 'cuda' or 'cpu' for deviceType, got ${String(deviceType)}`);
  }
  const dtype = opts.dtype ?? (deviceType === 'cuda' ? 'float16' : 'bfloat16');
  if (dtype !== 'float16' && dtype !== 'bfloat16') {
    throw codedError('TSGPU_ARG', `autocast: expected 'float16' or 'bfloat16' for dtype, got ${String(dtype)}`);
  }
  const prev = state[deviceType];
  state[deviceType] = { enabled: opts.enabled ?? true, dtype, cache: opts.cacheEnabled ?? true };
  depth++;
  return prev;
}

/**
 * Runs `fn` with autocast on for `deviceType` ('cuda' or 'cpu'); without
 * `fn`, returns a guard for `using`. An async fn keeps the region until it settles.
 */
export function autocast<T>(deviceType: DeviceType, opts: AutocastOptions, fn: () => T): T;
export function autocast<T>(deviceType: DeviceType, fn: () => T): T;
export function autocast(deviceType: DeviceType, opts?: AutocastOptions): AutocastGuard;
export function autocast<T>(deviceType: DeviceType, a?: AutocastOptions | (() => T), b?: () => T): T | AutocastGuard {
  const opts = typeof a === 'object' && a !== null ? a : {};
  const fn = typeof a === 'function' ? a : b;
  const prev = enter(deviceType, opts);
  const guard = new AutocastGuard(deviceType, prev);
  if (fn === undefined) return guard;
  if (typeof fn !== 'function') {
    guard.dispose();
    throw codedError('TSGPU_ARG', `autocast: expected a function for fn, got ${typeof fn}`);
  }
  let r: T;
  try {
    r = fn();
  } catch (e) {
    guard.dispose();
    throw e;
  }
  if (r instanceof Promise) return r.finally(() => guard.dispose()) as T;
  guard.dispose();
  return r;
}

/** The autocast settings of both device types at one moment (what a recomputation must run under). */
export interface AutocastSnapshot {
  cuda: AutocastOptions;
  cpu: AutocastOptions;
}

/** The current autocast settings of both device types (torch.utils.checkpoint records them with the forward). */
export function autocastSnapshot(): AutocastSnapshot {
  const of = (s: State): AutocastOptions => ({ enabled: s.enabled, dtype: s.dtype, cacheEnabled: s.cache });
  return { cuda: of(state.cuda), cpu: of(state.cpu) };
}

/** Runs `fn` under the autocast settings of `snap`, inside regions that end when it returns. */
export function withAutocastSnapshot<T>(snap: AutocastSnapshot, fn: () => T): T {
  return autocast('cuda', snap.cuda, () => autocast('cpu', snap.cpu, fn));
}

function deviceTypeOf(t: Tensor): DeviceType {
  return t.device === 'cpu' ? 'cpu' : 'cuda';
}

/** `t` in `dtype`: a cast copy (cached for a parameter in lower precision) or t itself. */
function castArg(t: Tensor, dtype: DType, st: State): Tensor {
  if (t.dtype === dtype || !isFloatingPoint(t.dtype) || t.dtype === 'float64') return t;
  const cacheable = st.cache && t.isLeaf && t.requiresGrad && isGradEnabled() && dtype !== 'float32';
  if (cacheable) {
    const hit = castCache.get(t);
    if (hit !== undefined && !hit.isDisposed && hit.dtype === dtype) return hit;
    const c = t.to(dtype);
    castCache.set(t, c);
    return c;
  }
  return t.to(dtype);
}

/** The dtype a `promote` op's floating arguments go to: the widest among them. */
function widest(args: readonly unknown[]): DType | null {
  const order: DType[] = ['float16', 'bfloat16', 'float32', 'float64'];
  let best = -1;
  for (const a of args) {
    if (a instanceof Tensor && isFloatingPoint(a.dtype)) best = Math.max(best, order.indexOf(a.dtype));
  }
  return best < 0 ? null : order[best];
}

/** The arguments as `op` takes them in the current region (or null when autocast leaves them alone). */
export function castArgs(op: string, args: readonly unknown[]): unknown[] | null {
  if (!state.cuda.enabled && !state.cpu.enabled) return null;
  const first = args.find((a): a is Tensor => a instanceof Tensor);
  if (first === undefined) return null;
  const dt = deviceTypeOf(first);
  const st = state[dt];
  if (!st.enabled) return null;
  const policy: CastPolicy | undefined = castPolicy(dt, op);
  if (policy === undefined) return null;
  let target: DType | null;
  if (policy === 'lower') target = st.dtype;
  else if (policy === 'float32') target = 'float32';
  else target = widest(args);
  if (target === null) return null;
  const t = target;
  return args.map((a) => (a instanceof Tensor && deviceTypeOf(a) === dt ? castArg(a, t, st) : a));
}

/** `fn` (op `op`, a function of tensors) with autocast's casting in front. */
export function autocastFunction<F extends (...args: any[]) => any>(op: string, fn: F): F {
  const wrapped = function (this: unknown, ...args: unknown[]) {
    const cast = castArgs(op, args);
    return fn.apply(this, cast ?? args);
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name });
  return wrapped as unknown as F;
}

/** A Tensor method `op` with autocast's casting of `this` and the arguments in front. */
export function autocastMethod<F extends (this: Tensor, ...args: any[]) => any>(op: string, fn: F): F {
  const wrapped = function (this: Tensor, ...args: unknown[]) {
    const cast = castArgs(op, [this, ...args]);
    if (cast === null) return fn.apply(this, args);
    return fn.apply(cast[0] as Tensor, cast.slice(1));
  };
  return wrapped as unknown as F;
}
