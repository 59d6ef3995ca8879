/**
 * torch.nn.functional: the ops of ops/nn_functional.ts with autocast's
 * casting in front of those it covers (amp/install.ts), and the functions
 * whose backward needs more than their ops' formulas:
 *
 *   embedding   the gradient of weight follows PyTorch's embedding backward:
 *               positions that look up paddingIdx pass no gradient back, and
 *               with scaleGradByFreq each position's gradient is divided by
 *               how often its index occurs in the batch.
 */
import { functional as autocastFunctional } from '../amp/install';
import { noGrad } from '../autograd/grad_mode';
import { onesLike, zeros } from '../ops/creation';
import { embedding as lookup, EmbeddingOptions } from '../ops/nn_functional';
import { Tensor } from '../tensor';

/**
 * The rows of `weight` at `indices` ([...indices.shape, embeddingDim]), as
 * torch.nn.functional.embedding: paddingIdx (default none; negative counts
 * from the end) gets no gradient, scaleGradByFreq (default false) divides each
 * position's gradient by its index's count in `indices`, maxNorm renormalizes
 * the looked-up rows of weight in place.
 */
export function embedding(indices: Tensor, weight: Tensor, opts?: EmbeddingOptions): Tensor {
  const rows = lookup(indices, weight, opts);
  let pad = opts?.paddingIdx ?? null;
  if (pad !== null && pad < 0) pad += weight.shape[0];
  const scale = opts?.scaleGradByFreq === true;
  if ((pad === null && !scale) || !rows.requiresGrad) return rows;
  // The rule is a hook on the lookup's own result, under the view the caller
  // gets: hooks the caller registers on the output see the gradient before it.
  const factor = noGrad(() => gradFactor(indices, weight.shape[0], rows.dtype, pad, scale));
  rows.registerHook((g) => g.mul(factor));
  const out = rows.view(rows.shape);
  rows.dispose();
  return out;
}

/** Per position of `indices` ([...indices.shape, 1]): 0 at the padding row, else 1 or 1/frequency. */
function gradFactor(indices: Tensor, rows: number, dtype: Tensor['dtype'], pad: number | null, scale: boolean): Tensor {
  const temps: Tensor[] = [];
  const keep = (t: Tensor): Tensor => (temps.push(t), t);
  try {
    const flat = keep(indices.reshape(-1));
    const idx = flat.dtype === 'int64' ? flat : keep(flat.long());
    let f = keep(onesLike(idx, { dtype }));
    if (scale) {
      const counts = keep(zeros([rows], { dtype, device: idx.device }));
      counts.scatterAdd_(0, idx, f);
      f = keep(keep(counts.gather(0, idx)).reciprocal());
    }
    if (pad !== null) f = keep(f.mul(keep(idx.ne(pad))));
    return keep(f.reshape([...indices.shape, 1])).clone();
  } finally {
    for (const t of temps) t.dispose();
  }
}

/** torch.nn.functional. */
export const functional = { ...autocastFunctional, embedding };
