/**
 * Layers without parameters: ReLU, GELU, SiLU, Tanh, Softmax, Dropout.
 */
import { codedError } from '../../errors';
import { dropout } from '../../ops/dropout';
import { gelu } from '../../ops/math';
import { softmax } from '../../amp/install';
import { Tensor } from '../../tensor';
import { Module } from '../module';
import { checkProbability, pyBool } from './args';

/** max(x, 0); `inplace` (default false) overwrites the input. */
export class ReLU extends Module {
  constructor(readonly inplace = false) {
    super();
  }
  forward(x: Tensor): Tensor {
    return this.inplace ? x.relu_() : x.relu();
  }
  extraRepr(): string {
    return this.inplace ? 'inplace=True' : '';
  }
}

/** x · Φ(x); `approximate` 'none' (exact, the default) or 'tanh'. */
export class GELU extends Module {
  constructor(readonly approximate: 'none' | 'tanh' = 'none') {
    super();
    if (approximate !== 'none' && approximate !== 'tanh') {
      throw codedError('TSGPU_ARG', `GELU: expected 'none' or 'tanh' for approximate, got ${String(approximate)}`);
    }
  }
  forward(x: Tensor): Tensor {
    return gelu(x, { approximate: this.approximate });
  }
  extraRepr(): string {
    return `approximate='${this.approximate}'`;
  }
}

/** x · sigmoid(x); `inplace` (default false) overwrites the input. */
export class SiLU extends Module {
  constructor(readonly inplace = false) {
    super();
  }
  forward(x: Tensor): Tensor {
    return this.inplace ? x.silu_() : x.silu();
  }
  extraRepr(): string {
    return this.inplace ? 'inplace=True' : '';
  }
}

/** tanh(x). */
export class Tanh extends Module {
  forward(x: Tensor): Tensor {
    return x.tanh();
  }
}

/** softmax over `dim` (required: PyTorch's implicit choice of dim is deprecated). */
export class Softmax extends Module {
  constructor(readonly dim: number) {
    super();
    if (!Number.isInteger(dim)) throw codedError('TSGPU_ARG', `Softmax: expected an integer for dim, got ${String(dim)}`);
  }
  forward(x: Tensor): Tensor {
    return softmax(x, this.dim);
  }
  extraRepr(): string {
    return `dim=${this.dim}`;
  }
}

/**
 * In training mode zeroes each element with probability p (default 0.5) and
 * scales the others by 1/(1-p); in evaluation mode returns its input.
 */
export class Dropout extends Module {
  readonly p: number;
  constructor(p = 0.5, readonly inplace = false) {
    super();
    this.p = checkProbability('Dropout', 'dropout', p);
  }
  forward(x: Tensor): Tensor {
    return dropout(x, this.p, this.training, this.inplace);
  }
  extraRepr(): string {
    return `p=${this.p}, inplace=${pyBool(this.inplace)}`;
  }
}
