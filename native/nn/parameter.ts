/**
 * nn.Parameter, and the labels that name what holds a tensor in training
 * terms ("parameter fc.weight", "gradient of fc.weight", "exp_avg of
 * fc.weight") for the memory views (`%memory --tensors`).
 */
import { labelTensor as autogradLabelTensor, LabelKind } from '../autograd/labels';
import { metaOf } from '../autograd/meta';
import { codedError } from '../errors';
import { untracked } from '../scope';
import { Tensor } from '../tensor';

/**
 * Sets what holds `t`, as the memory views name it (`%memory --tensors`,
 * torch.memory.liveTensors()'s holder): "parameter NAME" is a parameter,
 * "KEY of NAME" an optimizer's state, anything else the runtime's (a
 * buffer). A parameter's gradient is then named "gradient of NAME" by
 * autograd. Returns `t`.
 */
export function labelTensor(t: Tensor, label: string): Tensor {
  if (metaOf(t)?.label === label) return t;
  const kind: LabelKind = label.startsWith('parameter ') ? 'parameter' : / of /.test(label) ? 'optimizer' : 'runtime';
  autogradLabelTensor(t, kind, label);
  return t;
}

/** The name a parameter's label gives it ("fc.weight" for "parameter fc.weight"), or null. */
export function parameterName(t: Tensor): string | null {
  const label = metaOf(t)?.label ?? null;
  return label !== null && label.startsWith('parameter ') ? label.slice('parameter '.length) : null;
}

/**
 * Labels a parameter "parameter NAME" unless it already has a label with at
 * least as many dotted parts: a module path seen from nearer the root
 * ("blocks.0.attn.qkv.weight") wins over the same parameter seen from its own
 * module ("weight").
 */
export function labelParameter(p: Tensor, name: string): void {
  const old = parameterName(p);
  if (old === name || (old !== null && old.split('.').length > name.split('.').length)) return;
  labelTensor(p, `parameter ${name}`);
}

/**
 * A tensor that is a module's parameter (PyTorch's nn.Parameter): a leaf on
 * the memory of `data` (no copy), requiring grad unless `requiresGrad` is
 * false. Modules register the Parameters among their fields (see Module).
 *
 * @example
 * const w = new nn.Parameter(torch.randn([3, 4]));   // w.requiresGrad === true
 */
export class Parameter extends Tensor {
  constructor(data: Tensor, requiresGrad = true) {
    if (!(data instanceof Tensor)) {
      throw codedError('TSGPU_ARG', `Parameter: expected a Tensor for data, got ${data === null ? 'null' : typeof data}`);
    }
    if (typeof requiresGrad !== 'boolean') {
      throw codedError('TSGPU_ARG', `Parameter: expected a boolean for requiresGrad, got ${typeof requiresGrad}`);
    }
    const storage = data.untypedStorage();
    super(storage, data.shape.slice(), data.stride(), data.storageOffset(), data.dtype);
    if (requiresGrad) this.requiresGrad_(true);
  }

  /** "Parameter containing:" and the tensor, as PyTorch prints a parameter. */
  toString(): string {
    return `Parameter containing:\n${super.toString()}`;
  }
}

/**
 * A Parameter made from a tensor that `make` creates (outside any open
 * torch.tidy: a module's parameters belong to the module), which takes the
 * tensor's place.
 */
export function newParameter(make: () => Tensor, requiresGrad = true): Parameter {
  return untracked(() => {
    const t = make();
    try {
      return new Parameter(t, requiresGrad);
    } finally {
      t.dispose();
    }
  });
}
