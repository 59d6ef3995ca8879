/**
 * Tensor scopes for tidy(): every tensor created while a scope is open is
 * recorded in it, and disposed when the scope ends unless it is returned.
 */

/** Anything a scope can dispose. */
export interface Disposable {
  /** Releases what the object holds (a tensor: its storage, back to the caching allocator). */
  dispose(): void;
  readonly isDisposed: boolean;
}

const stack: Set<Disposable>[] = [];

// While > 0, new tensors are not recorded (autograd's saved tensors belong to the graph, not to a tidy).
let untrackedDepth = 0;

/** Records a new tensor in the innermost open scope, if any. */
export function track(t: Disposable): void {
  if (stack.length > 0 && untrackedDepth === 0) stack[stack.length - 1].add(t);
}

/** @internal Runs `fn` with new tensors left out of every open tidy (their owner disposes them). */
export function untracked<T>(fn: () => T): T {
  untrackedDepth++;
  try {
    return fn();
  } finally {
    untrackedDepth--;
  }
}

/** @internal Records `t` in the innermost open tidy (a tensor made untracked that now belongs to the caller). */
export function adoptIntoScope(t: Disposable): void {
  if (stack.length > 0) stack[stack.length - 1].add(t);
}

function collectKept(value: unknown, tracked: Set<Disposable>, kept: Set<Disposable>, seen: Set<unknown>): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (tracked.has(value as Disposable)) {
    kept.add(value as Disposable);
    return;
  }
  if (value instanceof Map) {
    for (const v of value.values()) collectKept(v, tracked, kept, seen);
  } else if (value instanceof Set || Array.isArray(value)) {
    for (const v of value) collectKept(v, tracked, kept, seen);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    for (const v of Object.values(value as Record<string, unknown>)) collectKept(v, tracked, kept, seen);
  }
}

/**
 * Runs `fn` and disposes every tensor created inside it except those it
 * returns (a tensor, or tensors inside arrays, plain objects, Maps or Sets).
 * Returned tensors belong to the enclosing tidy, if any. `fn` must be
 * synchronous: tensors made after an `await` could not be tracked.
 *
 * @example
 * const y = torch.tidy(() => x.mul(2).add(1)); // the x.mul(2) temporary is freed
 */
export function tidy<T>(fn: () => T): T {
  if (typeof fn !== 'function') throw new TypeError('tidy expects a function');
  return runScope(fn, true);
}

/**
 * @internal As tidy, but what `fn` returns is left out of every enclosing
 * tidy: the caller owns it (autograd's engine keeps gradients this way).
 */
export function ownedScope<T>(fn: () => T): T {
  return runScope(fn, false);
}

function runScope<T>(fn: () => T, propagate: boolean): T {
  const scope = new Set<Disposable>();
  stack.push(scope);
  const depth = untrackedDepth;
  untrackedDepth = 0;
  let result: T;
  try {
    result = fn();
  } catch (err) {
    stack.pop();
    untrackedDepth = depth;
    for (const t of scope) t.dispose();
    throw err;
  }
  stack.pop();
  untrackedDepth = depth;
  if (result instanceof Promise) {
    for (const t of scope) t.dispose();
    throw new TypeError('tidy does not support async functions: await outside of tidy, or dispose tensors explicitly');
  }
  const kept = new Set<Disposable>();
  collectKept(result, scope, kept, new Set());
  for (const t of scope) {
    if (!kept.has(t)) t.dispose();
    else if (propagate && stack.length > 0 && untrackedDepth === 0) stack[stack.length - 1].add(t);
  }
  return result;
}
