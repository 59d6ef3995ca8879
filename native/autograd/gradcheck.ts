/**
 * torch.autograd.gradcheck: compares the gradients backward computes with
 * central differences, in float64, element by element (the Jacobian of every
 * output with respect to every input that requires grad); and
 * torch.autograd.gradgradcheck: the same check of the gradients themselves,
 * computed with createGraph, as functions of the inputs and of the output
 * gradients (second derivatives, which a gradient penalty needs).
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { enableGrad, noGrad } from './grad_mode';
import { runBackward } from './engine';
import { randnLike, zeros } from '../ops/creation';

/** Options of gradcheck. */
export interface GradcheckOptions {
  /** Step of the central differences (default 1e-6). */
  eps?: number;
  /** Absolute tolerance (default 1e-5). */
  atol?: number;
  /** Relative tolerance (default 1e-3). */
  rtol?: number;
  /** Return false instead of throwing when a gradient differs (default false: throw, as PyTorch's raise_exception). */
  raiseException?: boolean;
}

function outputsOf(r: Tensor | Tensor[]): Tensor[] {
  return Array.isArray(r) ? r : [r];
}

/** Element `k` (row-major) of a contiguous `t`, as a view to write. */
function elementOf(t: Tensor, k: number): Tensor {
  return t.ndim === 0 ? t : t.view(-1).narrow(0, k, 1);
}

/** Values of `t` as numbers (flattened, row-major). */
function valuesOf(t: Tensor): number[] {
  return Array.from(t.contiguous().data() as Float64Array, Number);
}

/**
 * Checks fn's backward at `inputs` against finite differences; returns true,
 * or throws (raiseException false: returns false) naming the input, the
 * output and the element where they differ.
 */
export function gradcheck(fn: (...xs: Tensor[]) => Tensor | Tensor[], inputs: Tensor[], opts: GradcheckOptions = {}): boolean {
  const eps = opts.eps ?? 1e-6, atol = opts.atol ?? 1e-5, rtol = opts.rtol ?? 1e-3;
  const diffIn = inputs.filter((x) => x instanceof Tensor && x.requiresGrad);
  if (diffIn.length === 0) throw codedError('TSGPU_AUTOGRAD', 'gradcheck: expected at least one input tensor that requires grad');
  for (const x of diffIn) {
    if (x.dtype !== 'float64') throw codedError('TSGPU_AUTOGRAD', `gradcheck: inputs should be float64 for precise finite differences, got ${x.dtype}`);
  }
  const outs = outputsOf(fn(...inputs));
  const fail = (msg: string): boolean => {
    if (opts.raiseException === false) return false;
    throw codedError('TSGPU_AUTOGRAD', `gradcheck: ${msg}`);
  };
  // Analytical, for every output first (the central differences write into the inputs, which the graph
  // may have saved): one backward per output element. As in PyTorch, the outputs that require grad are
  // checked; when none does (a backward that was not recorded, say), every floating output has a zero
  // Jacobian, which the central differences must then confirm.
  const anyDifferentiable = outs.some((out) => out.requiresGrad);
  const checked = outs.map((out, o) => (out.requiresGrad || (!anyDifferentiable && isFloatingPoint(out.dtype)) ? o : -1)).filter((o) => o >= 0);
  const analytical = new Map<number, number[][][]>();
  for (const o of checked) {
    const out = outs[o];
    const rows: number[][][] = diffIn.map(() => []);
    analytical.set(o, rows);
    for (let k = 0; k < out.numel; k++) {
      if (!out.requiresGrad) {
        diffIn.forEach((x, i) => rows[i].push(new Array(x.numel).fill(0)));
        continue;
      }
      const go = zeros(out.shape.slice(), { dtype: out.dtype, device: out.device });
      noGrad(() => elementOf(go, k).fill_(1));
      const grads = runBackward([out], [go], { retainGraph: true }, diffIn);
      go.dispose();
      grads.forEach((g, i) => {
        rows[i].push(g === null ? new Array(diffIn[i].numel).fill(0) : valuesOf(g));
        g?.dispose();
      });
    }
  }
  // Numerical: central differences per input element, all outputs from each evaluation.
  for (let i = 0; i < diffIn.length; i++) {
    const x = diffIn[i];
    const base = valuesOf(x);
    for (let j = 0; j < x.numel; j++) {
      const at = (v: number): number[][] => {
        noGrad(() => elementOf(x, j).fill_(v));
        const rs = noGrad(() => outputsOf(fn(...inputs)));
        const vals = checked.map((o) => valuesOf(rs[o]));
        for (const r of rs) if (!inputs.includes(r)) r.dispose();
        return vals;
      };
      const plus = at(base[j] + eps);
      const minus = at(base[j] - eps);
      noGrad(() => elementOf(x, j).fill_(base[j]));
      for (const [c, o] of checked.entries()) {
        const rows = analytical.get(o)!;
        for (let k = 0; k < outs[o].numel; k++) {
          const num = (plus[c][k] - minus[c][k]) / (2 * eps);
          const ana = rows[i][k][j];
          if (!(Math.abs(num - ana) <= atol + rtol * Math.abs(num))) {
            return fail(`Jacobian mismatch for output ${o} with respect to input ${inputs.indexOf(x)}: ` +
              `element [${k}, ${j}] numerical ${num} analytical ${ana} (atol ${atol}, rtol ${rtol})`);
          }
        }
      }
    }
  }
  return true;
}

/**
 * Checks the double backward of `fn` at `inputs` (PyTorch's gradgradcheck):
 * the gradients of fn's outputs with respect to the inputs that require grad,
 * computed with createGraph from `gradOutputs` (default: random float64
 * tensors of the outputs' shapes, which take part as inputs), are checked with
 * gradcheck as a function of the inputs and of those output gradients. Returns
 * true, or throws (raiseException false: returns false) naming where they
 * differ; the input numbers in the message count the output gradients after
 * fn's own inputs.
 */
export function gradgradcheck(
  fn: (...xs: Tensor[]) => Tensor | Tensor[],
  inputs: Tensor[],
  gradOutputs?: Tensor[] | null,
  opts: GradcheckOptions = {},
): boolean {
  const n = inputs.length;
  let gos = gradOutputs ?? null;
  if (gos === null) {
    const outs = enableGrad(() => outputsOf(fn(...inputs)));
    gos = outs.filter((o) => o.requiresGrad).map((o) => randnLike(o, { dtype: 'float64' }).requiresGrad_());
    for (const o of outs) if (!inputs.includes(o)) o.dispose();
  }
  for (const [i, g] of gos.entries()) {
    if (!(g instanceof Tensor)) throw codedError('TSGPU_ARG', `gradgradcheck: expected a Tensor for gradOutputs[${i}], got ${typeof g}`);
  }
  const firstGrads = (...args: Tensor[]): Tensor[] =>
    enableGrad(() => {
      const xs = args.slice(0, n);
      const ys = outputsOf(fn(...xs)).filter((o) => o.requiresGrad);
      if (ys.length !== args.length - n) {
        throw codedError('TSGPU_ARG', `gradgradcheck: expected ${ys.length} gradOutputs (one per output that requires grad), got ${args.length - n}`);
      }
      const wrt = xs.filter((x) => x instanceof Tensor && x.requiresGrad);
      const gs = runBackward(ys, args.slice(n), { createGraph: true }, wrt);
      for (const y of ys) if (!xs.includes(y)) y.dispose();
      return gs.filter((g): g is Tensor => g !== null);
    });
  return gradcheck(firstGrads, [...inputs, ...gos], opts);
}
