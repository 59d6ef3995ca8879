/**
 * torch.einsum: Einstein summation over any number of operands, with
 * PyTorch's equation syntax (letters, one `...` per term, an explicit
 * `->` output or the implicit one: the `...` dims, then the letters used
 * once, in alphabetical order). Each pair of operands is contracted by one
 * batched matmul: the operands are permuted and reshaped to
 * [batch, rows, contracted] and [batch, contracted, columns], so the work
 * runs on the GEMM path of bmm (and its backward), never in a loop over
 * elements. A letter repeated in one term takes the diagonal (a strided
 * view); a letter needed neither later nor in the output is summed first.
 */
import { codedError } from '../errors';
import { formatShape, Tensor, viewOf } from '../tensor';
import { tidy } from '../scope';
import { bmm } from './linalg';
import { argError, checkTensor } from './helpers';

/** An operand on its way through the contraction: the tensor and one label per dim. */
interface Term {
  t: Tensor;
  labels: number[];
}

/** Labels: 0–25 'A'–'Z', 26–51 'a'–'z' (PyTorch's order), 52 + k the k-th of the broadcast `...` dims. */
const ELLIPSIS_BASE = 52;

function labelOf(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 97 + 26;
  return -1;
}

function labelName(l: number): string {
  return l >= ELLIPSIS_BASE ? '...' : String.fromCharCode(l < 26 ? 65 + l : 97 + l - 26);
}

/** A term's letters, with -1 where its `...` stands; null for a term without one. */
function parseTerm(term: string, what: string, at: number): number[] {
  const out: number[] = [];
  let dots = false;
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith('...', i)) {
      if (dots) throw codedError('TSGPU_ARG', `einsum(): found more than one ellipsis ("...") in ${what}`);
      dots = true;
      out.push(-1);
      i += 2;
      continue;
    }
    const l = labelOf(term[i]);
    if (l < 0) {
      throw codedError('TSGPU_ARG', `einsum(): invalid subscript given at index ${at + i} in the equation string, subscripts must be in [a-zA-Z]`);
    }
    out.push(l);
  }
  return out;
}

/** The operands' labelled terms and the output's labels, from the equation. */
function parse(equation: string, operands: readonly Tensor[]): { terms: Term[]; output: number[] } {
  const eq = equation.replace(/\s+/g, '');
  const arrow = eq.indexOf('->');
  const lhs = arrow < 0 ? eq : eq.slice(0, arrow);
  const parts = lhs.split(',');
  if (parts.length !== operands.length) {
    throw codedError('TSGPU_ARG', `einsum(): ${parts.length > operands.length ? 'fewer' : 'more'} operands were provided than specified in the equation (${operands.length} operands for ${parts.length} terms)`);
  }
  let start = 0;
  const raw = parts.map((p, i) => {
    const r = parseTerm(p, `operand ${i}`, start);
    start += p.length + 1;
    return r;
  });
  // The broadcast `...` dims: as many as the most any operand has, aligned to the right.
  let ellipsisDims = 0;
  raw.forEach((r, i) => {
    const letters = r.filter((l) => l >= 0).length;
    const t = operands[i];
    if (!r.includes(-1)) {
      if (letters !== t.ndim) {
        throw codedError('TSGPU_ARG', `einsum(): the number of subscripts in the equation (${letters}) does not match the number of dimensions (${t.ndim}) for operand ${i} and no ellipsis was given`);
      }
    } else {
      if (letters > t.ndim) {
        throw codedError('TSGPU_ARG', `einsum(): the number of subscripts in the equation (${letters}) is more than the number of dimensions (${t.ndim}) for operand ${i}`);
      }
      ellipsisDims = Math.max(ellipsisDims, t.ndim - letters);
    }
  });
  const terms = raw.map((r, i): Term => {
    const t = operands[i];
    const e = t.ndim - r.filter((l) => l >= 0).length;
    const labels = r.flatMap((l) => (l >= 0 ? [l] : Array.from({ length: e }, (_, k) => ELLIPSIS_BASE + ellipsisDims - e + k)));
    return { t, labels };
  });
  const ellipsis = Array.from({ length: ellipsisDims }, (_, k) => ELLIPSIS_BASE + k);
  const seen = new Map<number, number>();
  for (const r of raw) for (const l of r) if (l >= 0) seen.set(l, (seen.get(l) ?? 0) + 1);
  let output: number[];
  if (arrow < 0) {
    output = [...ellipsis, ...[...seen.keys()].filter((l) => seen.get(l) === 1).sort((a, b) => a - b)];
  } else {
    const rhs = parseTerm(eq.slice(arrow + 2), 'the output', arrow + 2);
    output = [];
    for (const l of rhs) {
      if (l === -1) {
        output.push(...ellipsis);
        continue;
      }
      if (!seen.has(l)) throw codedError('TSGPU_ARG', `einsum(): output subscript ${labelName(l)} does not appear in the equation for any input operand`);
      if (output.includes(l)) throw codedError('TSGPU_ARG', `einsum(): output subscript ${labelName(l)} appears more than once in the output`);
      output.push(l);
    }
  }
  return { terms, output };
}

/** The term with repeated labels replaced by their diagonal (sizes must agree). */
function diagonalize(term: Term, index: number): Term {
  const { t } = term;
  const labels: number[] = [];
  const shape: number[] = [];
  const strides: number[] = [];
  const st = t.stride();
  term.labels.forEach((l, d) => {
    const at = labels.indexOf(l);
    if (at < 0) {
      labels.push(l);
      shape.push(t.shape[d]);
      strides.push(st[d]);
      return;
    }
    if (shape[at] !== t.shape[d]) {
      throw codedError('TSGPU_ARG', `einsum(): subscript ${labelName(l)} is repeated for operand ${index} but the sizes don't match, ${shape[at]} != ${t.shape[d]}`);
    }
    strides[at] += st[d];
  });
  if (labels.length === term.labels.length) return term;
  return { t: viewOf(t, shape, strides, t.storageOffset()), labels };
}

/** Sums the dims whose labels are not in `keep`. */
function sumOut(term: Term, keep: ReadonlySet<number>): Term {
  const dims = term.labels.map((l, d) => (keep.has(l) ? -1 : d)).filter((d) => d >= 0);
  if (dims.length === 0) return term;
  return { t: term.t.sum(dims), labels: term.labels.filter((l) => keep.has(l)) };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

/** The size of each label in a term. */
function sizes(term: Term): Map<number, number> {
  return new Map(term.labels.map((l, d) => [l, term.t.shape[d]]));
}

/** Two terms contracted by one bmm: shared labels in `keep` are the batch, the other shared ones are summed. */
function contract(a: Term, b: Term, keep: ReadonlySet<number>): Term {
  const sa = sizes(a), sb = sizes(b);
  const batch = a.labels.filter((l) => sb.has(l) && keep.has(l));
  const summed = a.labels.filter((l) => sb.has(l) && !keep.has(l));
  const rows = a.labels.filter((l) => !sb.has(l));
  const cols = b.labels.filter((l) => !sa.has(l));
  const size = (l: number): number => {
    const x = sa.get(l) ?? 1, y = sb.get(l) ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      throw codedError('TSGPU_ARG', `einsum(): operands do not broadcast with remapped shapes (original->remapped): subscript ${labelName(l)} has size ${x} in one operand and ${y} in another`);
    }
    return Math.max(x, y);
  };
  const prod = (ls: number[]): number => ls.reduce((n, l) => n * size(l), 1);
  // Permuted, broadcast and reshaped to 3-D, each step skipped where it would change nothing.
  const arrange = (t: Term, order: number[], shape3: number[]): Tensor => {
    const perm = order.map((l) => t.labels.indexOf(l));
    let x = perm.every((d, i) => d === i) ? t.t : t.t.permute(perm);
    const full = order.map(size);
    if (x.shape.some((n, i) => n !== full[i])) x = x.expand(full);
    return sameShape(x.shape, shape3) ? x : x.reshape(shape3);
  };
  const A = arrange(a, [...batch, ...rows, ...summed], [prod(batch), prod(rows), prod(summed)]);
  const B = arrange(b, [...batch, ...summed, ...cols], [prod(batch), prod(summed), prod(cols)]);
  const labels = [...batch, ...rows, ...cols];
  const r = bmm(A, B);
  const shape = labels.map(size);
  return { t: sameShape(r.shape, shape) ? r : r.reshape(shape), labels };
}

/**
 * Einstein summation: `einsum('ij,jk->ik', a, b)` (matmul),
 * `einsum('bij,bjk->bik', a, b)`, `einsum('ii->i', a)` (diagonal),
 * `einsum('i,j->ij', u, v)` (outer), `einsum('...ij->...ji', a)`; the
 * operands may be given as separate arguments or as one list. Operands
 * are contracted left to right, each pair by one bmm.
 */
export function einsum(equation: string, ...operands: (Tensor | readonly Tensor[])[]): Tensor {
  if (typeof equation !== 'string') argError('einsum', 'a string', 'equation', equation);
  const list = operands.length === 1 && Array.isArray(operands[0]) ? (operands[0] as readonly Tensor[]) : (operands as Tensor[]);
  list.forEach((t, i) => checkTensor('einsum', `operands[${i}]`, t));
  if (list.length === 0) throw codedError('TSGPU_ARG', 'einsum(): must provide at least one operand');
  const devices = new Set(list.map((t) => t.device));
  if (devices.size > 1) throw codedError('TSGPU_ARG', `einsum(): Expected all tensors to be on the same device, but found ${[...devices].join(' and ')}`);
  const { terms, output } = parse(equation, list);
  return tidy(() => {
    let work = terms.map((t, i) => diagonalize(t, i));
    // A label that no other operand and not the output needs is summed in its own operand first.
    work = work.map((term, i) => {
      const needed = new Set(output);
      work.forEach((o, j) => j !== i && o.labels.forEach((l) => needed.add(l)));
      return sumOut(term, needed);
    });
    let acc = work[0];
    for (let i = 1; i < work.length; i++) {
      const keep = new Set(output);
      for (let j = i + 1; j < work.length; j++) work[j].labels.forEach((l) => keep.add(l));
      acc = contract(sumOut(acc, new Set([...keep, ...work[i].labels])), sumOut(work[i], new Set([...keep, ...acc.labels])), keep);
    }
    acc = sumOut(acc, new Set(output));
    const order = output.map((l) => acc.labels.indexOf(l));
    if (order.some((d) => d < 0)) throw codedError('TSGPU_ARG', `einsum(): the output ${formatShape(output)} is not made by the equation "${equation}"`);
    return order.every((d, i) => d === i) && acc.t !== list[0] ? acc.t : acc.t.permute(order);
  });
}
