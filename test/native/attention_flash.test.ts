/**
 * The flash attention ops on the CPU against PyTorch on the same inputs:
 * flashAttention's out and log-sum-exp, and the gradients its backward op
 * gives for q, k and v, causal and not, L ≠ S, float32 and float64; their
 * argument errors; and scaledDotProductAttention on the CPU unchanged by the
 * flash switch (the `attention` op, as before).
 */
import * as torch from '../../native/index';
import { flashAttention, useFlashAttention } from '../../native/ops/flash_attention';
import { compareWithTorch, RefCase } from './torch_reference';

type T = torch.Tensor;

torch.manualSeed(2023);

/** torch: scores masked as is_causal does (key j hidden from query i when j > i). */
const scores = (causal: boolean) =>
  causal
    ? '(q @ k.transpose(-2, -1) * s).masked_fill(torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).triu(1), float("-inf"))'
    : '(q @ k.transpose(-2, -1) * s)';

/** The runtime's gradients of sum(flashAttention(q, k, v).out · w). */
function flashGrads(x: Record<string, T>, causal: boolean, scale?: number): T[] {
  const [q, k, v] = [x.q, x.k, x.v].map((t) => t.detach().requiresGrad_());
  const [out, lse] = flashAttention(q, k, v, { isCausal: causal, scale });
  lse.dispose();
  out.mul(x.w).sum().backward();
  return [q.grad!, k.grad!, v.grad!];
}

const cases: RefCase[] = [];
for (const dtype of ['float32', 'float64'] as const) {
  for (const causal of [false, true]) {
    for (const [L, S, E] of [
      [7, 7, 8],
      [5, 9, 16],
      [12, 3, 32],
    ]) {
      const x = {
        q: torch.randn([2, 3, L, E], { dtype }),
        k: torch.randn([2, 3, S, E], { dtype }),
        v: torch.randn([2, 3, S, E], { dtype }),
        w: torch.randn([2, 3, L, E], { dtype }),
        s: torch.tensor(0.3, { dtype }),
      };
      const tag = `${dtype} L=${L} S=${S} E=${E}${causal ? ' causal' : ''}`;
      cases.push({
        name: `flashAttention: out and logsumexp, ${tag}`,
        inputs: x,
        torch:
          `(torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=${causal ? 'True' : 'False'}, scale=s.item()),` +
          ` torch.logsumexp(${scores(causal)}, -1).float())`,
        run: (i) => flashAttention(i.q, i.k, i.v, { isCausal: causal, scale: 0.3 }),
        // logsumexp is float32 on both sides.
        rtol: dtype === 'float64' ? 1e-6 : undefined,
        atol: dtype === 'float64' ? 1e-6 : undefined,
      });
      cases.push({
        name: `flashAttention backward: dq, dk, dv, ${tag}`,
        inputs: x,
        torch:
          `torch.autograd.grad((torch.nn.functional.scaled_dot_product_attention(q.requires_grad_(), k.requires_grad_(), v.requires_grad_(),` +
          ` is_causal=${causal ? 'True' : 'False'}, scale=s.item()) * w).sum(), (q, k, v))`,
        run: (i) => flashGrads(i, causal, 0.3),
        // P is recomputed from the float32 logsumexp.
        rtol: dtype === 'float64' ? 1e-5 : 1e-4,
        atol: dtype === 'float64' ? 1e-5 : 1e-4,
      });
    }
  }
}
// Default scale 1/sqrt(E) and batch dims broadcast (one key/value head for every query head).
cases.push({
  name: 'flashAttention: default scale, key and value broadcast over heads',
  inputs: { q: torch.randn([2, 4, 6, 8]), k: torch.randn([2, 1, 5, 8]), v: torch.randn([2, 1, 5, 8]) },
  torch: 'torch.nn.functional.scaled_dot_product_attention(q, k.expand(2, 4, 5, 8), v.expand(2, 4, 5, 8))',
  run: (i) => {
    const [out, lse] = flashAttention(i.q, i.k, i.v);
    lse.dispose();
    return out;
  },
});

describe('flash attention ops on the cpu against PyTorch', () => {
  compareWithTorch(cases);
});

describe('flash attention: errors and routing on the cpu', () => {
  test('bad operands give errors naming the problem', () => {
    const q = torch.randn([2, 4, 130]);
    expect(() => flashAttention(q, q, q)).toThrow('flashAttention: expected a head dim of at most 128, got 130');
    const a = torch.randn([2, 4, 8]);
    expect(() => flashAttention(a, torch.randn([2, 5, 4]), torch.randn([2, 5, 8]))).toThrow(/flashAttention: expected key \[\.\.\., S, D\]/);
    expect(() => flashAttention(a, a.double(), a)).toThrow('flashAttention: expected query, key and value of one dtype');
    expect(() => flashAttention(torch.ones([2, 3], { dtype: 'int64' }), a, a)).toThrow("flashAttention: expected a floating tensor for query, got 'int64'");
    expect(() => flashAttention(a, a, a, { scale: NaN })).toThrow('flashAttention: expected a finite number for scale, got NaN');
    expect(() => torch.backends.cuda.enableFlashSdp('yes' as unknown as boolean)).toThrow("enableFlashSdp: expected a boolean for enabled, got 'yes'");
  });

  test('a graph of the flash backward (createGraph) is refused with the reason', () => {
    const [q, k, v] = [0, 1, 2].map(() => torch.randn([1, 4, 8], { dtype: 'float64' }).requiresGrad_());
    const [out] = flashAttention(q, k, v);
    // The backward op would be recorded for a second differentiation: refused when it is.
    expect(() => torch.autograd.grad(out.sum(), [q], { createGraph: true })).toThrow(/derivative of flash attention's backward is not implemented/);
    // Without createGraph the gradient is computed.
    const [again] = flashAttention(q, k, v);
    const [gq] = torch.autograd.grad(again.sum(), [q]);
    expect(gq!.shape).toEqual([1, 4, 8]);
  });

  test('scaledDotProductAttention on the cpu keeps the weights path, bit for bit, whatever the flash switch', () => {
    const [q, k, v] = [0, 1, 2].map(() => torch.randn([2, 3, 9, 16]).requiresGrad_());
    expect(useFlashAttention(q, k, v, { hasMask: false, dropoutP: 0 })).toBe(false);
    // On by default, as PyTorch's (TSGPU_FLASH_SDP=0 turns it off).
    const before = torch.backends.cuda.flashSdpEnabled();
    expect(before).toBe(process.env.TSGPU_FLASH_SDP !== '0');
    torch.backends.cuda.enableFlashSdp(true);
    let on: T;
    try {
      on = torch.scaledDotProductAttention(q, k, v, { isCausal: true });
    } finally {
      torch.backends.cuda.enableFlashSdp(before);
    }
    expect(on.gradFn!.name()).toBe('ScaledDotProductAttentionBackward0');
    const off = torch.scaledDotProductAttention(q, k, v, { isCausal: true });
    expect(Array.from(on.toArray() as Float32Array)).toEqual(Array.from(off.toArray() as Float32Array));
  });
});
