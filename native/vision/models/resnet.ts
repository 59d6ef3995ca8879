/**
 * torchvision's ResNets (ResNet-18, 34, 50, 101, 152: the "v1.5" variant
 * with the stride on the 3x3 convolution of a bottleneck), with its module
 * tree and parameter names (`layer1.0.conv1.weight`, `bn1.running_mean`,
 * `layer2.0.downsample.0.weight`, `fc.bias`), and its random
 * initialization: convolutions kaiming normal (fan_out, relu), batch norms
 * weight 1 and bias 0, the final Linear PyTorch's default. No weights are
 * downloaded.
 */
import { codedError } from '../../errors';
import { Tensor } from '../../tensor';
import { noGrad } from '../../autograd/grad_mode';
import * as init from '../../nn/init';
import { Module } from '../../nn/module';
import { ReLU } from '../../nn/modules/activation';
import { BatchNorm2d } from '../../nn/modules/batchnorm';
import { Sequential } from '../../nn/modules/container';
import { Conv2d } from '../../nn/modules/conv';
import { Linear } from '../../nn/modules/linear';
import { AdaptiveAvgPool2d, MaxPool2d } from '../../nn/modules/pooling';
import { FactoryOptions } from '../../nn/modules/args';

/** Options of the ResNet builders (torchvision's keyword arguments that apply without weights). */
export interface ResNetOptions extends FactoryOptions {
  /** Outputs of the final Linear (default 1000, ImageNet's classes). */
  numClasses?: number;
  /** Start each residual branch's last batch norm at weight 0, so that every block begins as the identity (default false). */
  zeroInitResidual?: boolean;
}

function conv3x3(inC: number, outC: number, stride: number, f: FactoryOptions): Conv2d {
  return new Conv2d(inC, outC, 3, { stride, padding: 1, bias: false, ...f });
}

function conv1x1(inC: number, outC: number, stride: number, f: FactoryOptions): Conv2d {
  return new Conv2d(inC, outC, 1, { stride, bias: false, ...f });
}

/** Adds the shortcut to the branch and applies relu, freeing the temporaries. */
function joinResidual(branch: Tensor, x: Tensor, downsample: Sequential | null): Tensor {
  const identity = downsample ? downsample.forward(x) : x;
  const sum = branch.add(identity);
  branch.dispose();
  if (identity !== x) identity.dispose();
  const out = sum.relu();
  sum.dispose();
  return out;
}

/** conv → bn (→ relu), freeing the intermediate. */
function convBn(conv: Conv2d, bn: BatchNorm2d, x: Tensor, relu: boolean): Tensor {
  const c = conv.forward(x);
  const b = bn.forward(c);
  c.dispose();
  if (!relu) return b;
  const r = b.relu();
  b.dispose();
  return r;
}

/** ResNet-18/34's block: two 3x3 convolutions and the shortcut (expansion 1). */
export class BasicBlock extends Module {
  static readonly expansion = 1;
  conv1: Conv2d;
  bn1: BatchNorm2d;
  conv2: Conv2d;
  bn2: BatchNorm2d;
  relu: ReLU;
  downsample: Sequential | null;
  readonly stride: number;

  constructor(inplanes: number, planes: number, stride: number, downsample: Sequential | null, f: FactoryOptions) {
    super();
    this.conv1 = conv3x3(inplanes, planes, stride, f);
    this.bn1 = new BatchNorm2d(planes, f);
    this.relu = new ReLU();
    this.conv2 = conv3x3(planes, planes, 1, f);
    this.bn2 = new BatchNorm2d(planes, f);
    this.downsample = downsample;
    this.stride = stride;
  }

  forward(x: Tensor): Tensor {
    const a = convBn(this.conv1, this.bn1, x, true);
    const b = convBn(this.conv2, this.bn2, a, false);
    a.dispose();
    return joinResidual(b, x, this.downsample);
  }

  /** The batch norm that ends the residual branch (zeroInitResidual sets its weight to 0). */
  lastBn(): BatchNorm2d {
    return this.bn2;
  }
}

/** ResNet-50/101/152's block: 1x1 reduce, 3x3 (with the stride), 1x1 expand (expansion 4), and the shortcut. */
export class Bottleneck extends Module {
  static readonly expansion = 4;
  conv1: Conv2d;
  bn1: BatchNorm2d;
  conv2: Conv2d;
  bn2: BatchNorm2d;
  conv3: Conv2d;
  bn3: BatchNorm2d;
  relu: ReLU;
  downsample: Sequential | null;
  readonly stride: number;

  constructor(inplanes: number, planes: number, stride: number, downsample: Sequential | null, f: FactoryOptions) {
    super();
    const width = planes;
    this.conv1 = conv1x1(inplanes, width, 1, f);
    this.bn1 = new BatchNorm2d(width, f);
    this.conv2 = conv3x3(width, width, stride, f);
    this.bn2 = new BatchNorm2d(width, f);
    this.conv3 = conv1x1(width, planes * Bottleneck.expansion, 1, f);
    this.bn3 = new BatchNorm2d(planes * Bottleneck.expansion, f);
    this.relu = new ReLU();
    this.downsample = downsample;
    this.stride = stride;
  }

  forward(x: Tensor): Tensor {
    const a = convBn(this.conv1, this.bn1, x, true);
    const b = convBn(this.conv2, this.bn2, a, true);
    a.dispose();
    const c = convBn(this.conv3, this.bn3, b, false);
    b.dispose();
    return joinResidual(c, x, this.downsample);
  }

  /** The batch norm that ends the residual branch. */
  lastBn(): BatchNorm2d {
    return this.bn3;
  }
}

type BlockClass = typeof BasicBlock | typeof Bottleneck;

/** torchvision's ResNet: stem (7x7 conv, bn, relu, 3x3 max pool), four stages, global average pool, Linear. */
export class ResNet extends Module {
  conv1: Conv2d;
  bn1: BatchNorm2d;
  relu: ReLU;
  maxpool: MaxPool2d;
  layer1: Sequential;
  layer2: Sequential;
  layer3: Sequential;
  layer4: Sequential;
  avgpool: AdaptiveAvgPool2d;
  fc: Linear;
  private inplanes = 64;

  constructor(block: BlockClass, layers: readonly [number, number, number, number], opts: ResNetOptions = {}) {
    super();
    const numClasses = opts.numClasses ?? 1000;
    if (!Number.isInteger(numClasses) || numClasses < 1) {
      throw codedError('TSGPU_ARG', `ResNet: expected a positive integer for numClasses, got ${String(numClasses)}`);
    }
    const f: FactoryOptions = { device: opts.device, dtype: opts.dtype };
    Object.defineProperty(this, 'inplanes', { value: 64, writable: true, enumerable: false });
    this.conv1 = new Conv2d(3, 64, 7, { stride: 2, padding: 3, bias: false, ...f });
    this.bn1 = new BatchNorm2d(64, f);
    this.relu = new ReLU();
    this.maxpool = new MaxPool2d(3, { stride: 2, padding: 1 });
    this.layer1 = this.makeLayer(block, 64, layers[0], 1, f);
    this.layer2 = this.makeLayer(block, 128, layers[1], 2, f);
    this.layer3 = this.makeLayer(block, 256, layers[2], 2, f);
    this.layer4 = this.makeLayer(block, 512, layers[3], 2, f);
    this.avgpool = new AdaptiveAvgPool2d([1, 1]);
    this.fc = new Linear(512 * block.expansion, numClasses, f);
    noGrad(() => {
      for (const m of this.modules()) {
        if (m instanceof Conv2d) init.kaimingNormal_(m.weight, { mode: 'fan_out', nonlinearity: 'relu' });
        else if (m instanceof BatchNorm2d) {
          init.ones_(m.weight!);
          init.zeros_(m.bias!);
        }
      }
      if (opts.zeroInitResidual) {
        for (const m of this.modules()) if (m instanceof BasicBlock || m instanceof Bottleneck) init.zeros_(m.lastBn().weight!);
      }
    });
  }

  private makeLayer(block: BlockClass, planes: number, blocks: number, stride: number, f: FactoryOptions): Sequential {
    let downsample: Sequential | null = null;
    const out = planes * block.expansion;
    if (stride !== 1 || this.inplanes !== out) {
      downsample = new Sequential(conv1x1(this.inplanes, out, stride, f), new BatchNorm2d(out, f));
    }
    const list: Module[] = [new block(this.inplanes, planes, stride, downsample, f)];
    this.inplanes = out;
    for (let i = 1; i < blocks; i++) list.push(new block(this.inplanes, planes, 1, null, f));
    return new Sequential(...list);
  }

  /** Logits [N, numClasses] of images [N, 3, H, W]. */
  forward(x: Tensor): Tensor {
    const stem = convBn(this.conv1, this.bn1, x, true);
    let h = this.maxpool.forward(stem) as Tensor;
    stem.dispose();
    for (const layer of [this.layer1, this.layer2, this.layer3, this.layer4]) {
      const next = layer.forward(h) as Tensor;
      h.dispose();
      h = next;
    }
    const pooled = this.avgpool.forward(h);
    h.dispose();
    const flat = pooled.flatten(1);
    pooled.dispose();
    const logits = this.fc.forward(flat);
    flat.dispose();
    return logits;
  }
}

/** ResNet-18 (BasicBlock, [2, 2, 2, 2]): 11,689,512 parameters with 1000 classes. */
export function resnet18(opts: ResNetOptions = {}): ResNet {
  return new ResNet(BasicBlock, [2, 2, 2, 2], opts);
}

/** ResNet-34 (BasicBlock, [3, 4, 6, 3]). */
export function resnet34(opts: ResNetOptions = {}): ResNet {
  return new ResNet(BasicBlock, [3, 4, 6, 3], opts);
}

/** ResNet-50 (Bottleneck, [3, 4, 6, 3]): 25,557,032 parameters with 1000 classes. */
export function resnet50(opts: ResNetOptions = {}): ResNet {
  return new ResNet(Bottleneck, [3, 4, 6, 3], opts);
}

/** ResNet-101 (Bottleneck, [3, 4, 23, 3]). */
export function resnet101(opts: ResNetOptions = {}): ResNet {
  return new ResNet(Bottleneck, [3, 4, 23, 3], opts);
}

/** ResNet-152 (Bottleneck, [3, 8, 36, 3]): 60,192,808 parameters with 1000 classes. */
export function resnet152(opts: ResNetOptions = {}): ResNet {
  return new ResNet(Bottleneck, [3, 8, 36, 3], opts);
}
