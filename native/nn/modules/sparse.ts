/**
 * Embedding: a lookup table of learned rows, N(0, 1) by default with the
 * padding row zeroed, as PyTorch's.
 */
import { empty } from '../../ops/creation';
import { embedding } from '../functional';
import { noGrad } from '../../autograd/grad_mode';
import { shapeError, codedError } from '../../errors';
import { Tensor } from '../../tensor';
import * as init from '../init';
import { Module } from '../module';
import { newParameter, Parameter } from '../parameter';
import { checkPositiveInt, factoryOptions, FactoryOptions } from './args';

/** Options of Embedding. */
export interface EmbeddingLayerOptions extends FactoryOptions {
  /** A row whose gradient stays zero and that starts at zero (negative counts from the end). */
  paddingIdx?: number | null;
  /** Rows looked up whose norm exceeds this are renormalized in place first. */
  maxNorm?: number | null;
  /** The p of maxNorm's norm (default 2). */
  normType?: number;
  /** Scale each row's gradient by the inverse frequency of its index in the batch (default false). */
  scaleGradByFreq?: boolean;
  /** Sparse gradients: not supported (no sparse tensors); false is the default. */
  sparse?: boolean;
  /** Initial weight [numEmbeddings, embeddingDim] to copy instead of N(0, 1). */
  weight?: Tensor;
}

/** Rows of weight [numEmbeddings, embeddingDim] picked by integer indices. */
export class Embedding extends Module {
  readonly numEmbeddings: number;
  readonly embeddingDim: number;
  readonly paddingIdx: number | null;
  readonly maxNorm: number | null;
  readonly normType: number;
  readonly scaleGradByFreq: boolean;
  weight: Parameter;

  constructor(numEmbeddings: number, embeddingDim: number, opts: EmbeddingLayerOptions = {}) {
    super();
    this.numEmbeddings = checkPositiveInt('Embedding', 'numEmbeddings', numEmbeddings, true);
    this.embeddingDim = checkPositiveInt('Embedding', 'embeddingDim', embeddingDim, true);
    let pad = opts.paddingIdx ?? null;
    if (pad !== null) {
      if (!Number.isInteger(pad) || pad >= numEmbeddings || pad < -numEmbeddings) {
        throw codedError('TSGPU_ARG', pad >= 0 ? 'Padding_idx must be within num_embeddings' : 'Padding_idx must be within num_embeddings');
      }
      if (pad < 0) pad += numEmbeddings;
    }
    if (opts.sparse) throw codedError('TSGPU_ARG', 'Embedding: sparse gradients are not supported (tsgpu has no sparse tensors); pass sparse: false');
    this.paddingIdx = pad;
    this.maxNorm = opts.maxNorm ?? null;
    this.normType = opts.normType ?? 2;
    this.scaleGradByFreq = opts.scaleGradByFreq ?? false;
    const t = factoryOptions('Embedding', opts);
    const given = opts.weight;
    if (given !== undefined) {
      if (given.ndim !== 2 || given.shape[0] !== numEmbeddings || given.shape[1] !== embeddingDim) {
        throw shapeError('Shape of weight does not match num_embeddings and embedding_dim');
      }
      this.weight = newParameter(() => given.to({ dtype: t.dtype ?? given.dtype, device: t.device ?? given.device }).contiguous().clone());
    } else {
      this.weight = newParameter(() => empty([numEmbeddings, embeddingDim], t));
      this.resetParameters();
    }
  }

  /** N(0, 1), the padding row zeros. */
  resetParameters(): void {
    init.normal_(this.weight);
    if (this.paddingIdx !== null) {
      noGrad(() => {
        const row = this.weight.select(0, this.paddingIdx!);
        row.fill_(0);
        row.dispose();
      });
    }
  }

  /**
   * The rows at `indices`. The gradient of weight follows PyTorch's
   * embedding backward (nn/functional.ts): positions that look up the
   * padding row pass no gradient back, and with scaleGradByFreq each
   * position's gradient is divided by how often its index occurs.
   */
  forward(indices: Tensor): Tensor {
    return embedding(indices, this.weight, {
      paddingIdx: this.paddingIdx, maxNorm: this.maxNorm, normType: this.normType, scaleGradByFreq: this.scaleGradByFreq,
    });
  }

  extraRepr(): string {
    let s = `${this.numEmbeddings}, ${this.embeddingDim}`;
    if (this.paddingIdx !== null) s += `, padding_idx=${this.paddingIdx}`;
    if (this.maxNorm !== null) s += `, max_norm=${this.maxNorm}`;
    if (this.normType !== 2) s += `, norm_type=${this.normType}`;
    if (this.scaleGradByFreq) s += ', scale_grad_by_freq=True';
    return s;
  }
}
