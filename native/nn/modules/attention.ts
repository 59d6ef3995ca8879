/**
 * MultiheadAttention: PyTorch's nn.MultiheadAttention with one packed input
 * projection (kdim = vdim = embedDim). The parameter names are PyTorch's
 * (in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias), so state
 * dicts load both ways.
 */
import { shapeError, codedError } from '../../errors';
import { empty, zeros } from '../../ops/creation';
import { linear, matmul, scaledDotProductAttention } from '../../amp/install';
import { dropout } from '../../ops/dropout';
import { softmax } from '../../amp/install';
import { Tensor } from '../../tensor';
import * as init from '../init';
import { Module } from '../module';
import { newParameter, Parameter } from '../parameter';
import { checkPositiveInt, checkProbability, factoryOptions, FactoryOptions } from './args';
import { Linear } from './linear';

/** Options of MultiheadAttention. */
export interface MultiheadAttentionOptions extends FactoryOptions {
  /** Dropout on the attention weights in training (default 0). */
  dropout?: number;
  /** Biases of the input and output projections (default true). */
  bias?: boolean;
  /** Inputs are [batch, seq, embed] (default false: [seq, batch, embed]). */
  batchFirst?: boolean;
  /** Key dim: only embedDim is supported. */
  kdim?: number;
  /** Value dim: only embedDim is supported. */
  vdim?: number;
}

/** Options of MultiheadAttention.forward (PyTorch's defaults). */
export interface MultiheadAttentionForwardOptions {
  /** [batch, S] (or [S] unbatched): true (or -inf added) where a key is padding. */
  keyPaddingMask?: Tensor | null;
  /** Return the attention weights (default true). */
  needWeights?: boolean;
  /** [L, S] or [batch·heads, L, S]: true where attending is NOT allowed, or a float mask added to the scores. */
  attnMask?: Tensor | null;
  /** Average the returned weights over the heads (default true). */
  averageAttnWeights?: boolean;
  /** A hint that attnMask is the causal mask (attnMask is still required, as in PyTorch). */
  isCausal?: boolean;
}

/** softmax(q kᵀ / √d + mask) v over numHeads heads, between the input and output projections. */
export class MultiheadAttention extends Module {
  readonly embedDim: number;
  readonly numHeads: number;
  readonly headDim: number;
  readonly dropout: number;
  readonly batchFirst: boolean;
  in_proj_weight: Parameter;
  in_proj_bias: Parameter | null;
  out_proj: Linear;

  constructor(embedDim: number, numHeads: number, opts: MultiheadAttentionOptions = {}) {
    super();
    this.embedDim = checkPositiveInt('MultiheadAttention', 'embedDim', embedDim);
    this.numHeads = checkPositiveInt('MultiheadAttention', 'numHeads', numHeads);
    if (embedDim % numHeads !== 0) throw codedError('TSGPU_ARG', 'embed_dim must be divisible by num_heads');
    for (const d of ['kdim', 'vdim'] as const) {
      const v = opts[d];
      if (v !== undefined && v !== embedDim) throw codedError('TSGPU_ARG', `MultiheadAttention: a ${d} other than embedDim is not supported (got ${v}, embedDim ${embedDim})`);
    }
    this.headDim = embedDim / numHeads;
    this.dropout = checkProbability('MultiheadAttention', 'dropout', opts.dropout ?? 0);
    this.batchFirst = opts.batchFirst ?? false;
    const t = factoryOptions('MultiheadAttention', opts);
    const bias = opts.bias ?? true;
    this.in_proj_weight = newParameter(() => empty([3 * embedDim, embedDim], t));
    this.in_proj_bias = bias ? newParameter(() => empty([3 * embedDim], t)) : null;
    this.out_proj = new Linear(embedDim, embedDim, { ...opts, bias });
    this.resetParameters();
  }

  /** PyTorch's defaults: in_proj_weight Xavier uniform, the biases zeros (out_proj.weight keeps Linear's). */
  resetParameters(): void {
    init.xavierUniform_(this.in_proj_weight);
    if (this.in_proj_bias !== null) init.zeros_(this.in_proj_bias);
    if (this.out_proj.bias !== null) init.zeros_(this.out_proj.bias);
  }

  /**
   * Attention of query [L, N, E] over key and value [S, N, E] ([N, L, E] with
   * batchFirst; [L, E] unbatched): [output (the query's layout), weights
   * [N, L, S] ([N, heads, L, S] without averaging) or null].
   */
  forward(query: Tensor, key: Tensor, value: Tensor, opts: MultiheadAttentionForwardOptions = {}): [Tensor, Tensor | null] {
    const E = this.embedDim, H = this.numHeads, D = this.headDim;
    const unbatched = query.ndim === 2;
    if (query.ndim !== 2 && query.ndim !== 3) throw codedError('TSGPU_ARG', `query should be unbatched 2D or batched 3D tensor but received ${query.ndim}-D query tensor`);
    for (const [n, x] of [['key', key], ['value', value]] as const) {
      if (x.ndim !== query.ndim) throw codedError('TSGPU_ARG', `For ${unbatched ? 'unbatched (2-D)' : 'batched (3-D)'} \`query\`, expected \`${n}\` to be ${query.ndim}-D but got a ${x.ndim}-D tensor`);
      if (x.shape[x.ndim - 1] !== E) throw shapeError(`was expecting embedding dimension of ${E}, but got ${x.shape[x.ndim - 1]} for ${n}`);
    }
    if (query.shape[query.ndim - 1] !== E) throw shapeError(`was expecting embedding dimension of ${E}, but got ${query.shape[query.ndim - 1]}`);
    if (opts.isCausal && !opts.attnMask) throw codedError('TSGPU_ARG', 'Need attn_mask if specifying the is_causal hint.');
    const tmp: Tensor[] = [];
    const keep = (x: Tensor): Tensor => (tmp.push(x), x);
    try {
      // To [N, L, E].
      const batched = (x: Tensor): Tensor => keep(unbatched ? x.unsqueeze(0) : this.batchFirst ? x.view(x.shape) : x.transpose(0, 1));
      const q0 = batched(query), k0 = batched(key), v0 = batched(value);
      const N = q0.shape[0], L = q0.shape[1], S = k0.shape[1];
      const heads = (x: Tensor, i: number, len: number): Tensor => {
        const w = keep(this.in_proj_weight.narrow(0, i * E, E));
        const b = this.in_proj_bias === null ? null : keep(this.in_proj_bias.narrow(0, i * E, E));
        const p = keep(linear(x, w, b));
        return keep(keep(p.reshape([N, len, H, D])).transpose(1, 2));
      };
      const q = heads(q0, 0, L), k = heads(k0, 1, S), v = heads(v0, 2, S);
      const mask = this.mergeMasks(opts, N, L, S, q.dtype, q.device, keep);
      const p = this.training ? this.dropout : 0;
      let out: Tensor;
      let weights: Tensor | null = null;
      if (opts.needWeights ?? true) {
        const kt = keep(k.transpose(-2, -1));
        let scores = keep(matmul(q, kt));
        scores = keep(scores.mul(1 / Math.sqrt(D)));
        if (mask !== null) scores = keep(scores.add(mask));
        let w = keep(softmax(scores, -1));
        if (p > 0) w = keep(dropout(w, p, true));
        out = keep(matmul(w, v));
        weights = (opts.averageAttnWeights ?? true) ? w.mean(1) : w.view(w.shape);
        if (unbatched) {
          const sq = weights.squeeze(0);
          weights.dispose();
          weights = sq;
        }
      } else {
        out = keep(scaledDotProductAttention(q, k, v, { attnMask: mask, dropoutP: p }));
      }
      const merged = keep(keep(out.transpose(1, 2)).reshape([N, L, E]));
      const projected = keep(this.out_proj.forward(merged));
      const result = unbatched ? projected.squeeze(0) : this.batchFirst ? projected.view(projected.shape) : projected.transpose(0, 1);
      return [result, weights];
    } finally {
      for (const x of tmp) x.dispose();
    }
  }

  /** attnMask and keyPaddingMask as one float mask added to the scores ([N, H, L, S] broadcastable), or null. */
  private mergeMasks(opts: MultiheadAttentionForwardOptions, N: number, L: number, S: number, dtype: Tensor['dtype'], device: string, keep: (x: Tensor) => Tensor): Tensor | null {
    const asFloat = (m: Tensor): Tensor => {
      if (m.dtype !== 'bool') return m.dtype === dtype ? m : keep(m.to(dtype));
      const z = keep(zeros(m.shape, { dtype, device }));
      return keep(z.maskedFill(m, -Infinity));
    };
    let mask: Tensor | null = null;
    const am = opts.attnMask ?? null;
    if (am !== null) {
      let f = asFloat(am);
      if (f.ndim === 2) {
        if (f.shape[0] !== L || f.shape[1] !== S) throw shapeError(`The shape of the 2D attn_mask is [${f.shape.join(', ')}], but should be (${L}, ${S}).`);
      } else if (f.ndim === 3) {
        if (f.shape[0] !== N * this.numHeads || f.shape[1] !== L || f.shape[2] !== S) {
          throw shapeError(`The shape of the 3D attn_mask is [${f.shape.join(', ')}], but should be (${N * this.numHeads}, ${L}, ${S}).`);
        }
        f = keep(f.view([N, this.numHeads, L, S]));
      } else {
        throw codedError('TSGPU_ARG', `attn_mask's dimension ${f.ndim} is not supported`);
      }
      mask = f;
    }
    const kp = opts.keyPaddingMask ?? null;
    if (kp !== null) {
      const want = N === 1 && kp.ndim === 1 ? [S] : [N, S];
      if (kp.ndim !== want.length || kp.shape.some((s, i) => s !== want[i])) {
        throw shapeError(`expecting key_padding_mask shape of (${want.join(', ')}), but got [${kp.shape.join(', ')}]`);
      }
      const f = asFloat(kp);
      const b = keep(f.view([N, 1, 1, S]));
      mask = mask === null ? b : keep(mask.add(b));
    }
    return mask;
  }
}
