/**
 * torch.vision.models: ResNet-18/50/152 have torchvision's parameter counts
 * and stateDict keys (in order), checked against a ResNet built from
 * PyTorch's own modules with torchvision's structure
 * (resnet_reference.py, run by the reference Python), and torchvision's
 * initialization; a ResNet-18 runs forward and backward on CPU.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as torch from '../../../native/index';
import { PYTHON } from '../torch_reference';

const SCRIPT = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'native', 'vision', 'resnet_reference.py');

interface Reference { name: string; parameters: number; keys: string[] }

let refs: Map<string, Reference> | null = null;
function reference(name: string): Reference {
  if (refs === null) {
    const r = spawnSync(PYTHON, [SCRIPT, 'resnet18', 'resnet50', 'resnet152'], { encoding: 'utf8', timeout: 120000 });
    if (r.status !== 0) throw new Error(`${PYTHON} ${SCRIPT} failed: ${r.stderr || r.error?.message}`);
    refs = new Map(r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Reference).map((x) => [x.name, x]));
  }
  return refs.get(name)!;
}

const builders = { resnet18: torch.vision.models.resnet18, resnet50: torch.vision.models.resnet50, resnet152: torch.vision.models.resnet152 };
/** torchvision's published parameter counts (1000 classes). */
const COUNTS = { resnet18: 11_689_512, resnet50: 25_557_032, resnet152: 60_192_808 };

describe.each(Object.keys(builders) as (keyof typeof builders)[])('%s', (name) => {
  test('parameter count and stateDict keys equal torchvision\'s', () => {
    const model = builders[name]();
    try {
      const count = [...model.parameters()].reduce((s, p) => s + p.numel, 0);
      expect(count).toBe(COUNTS[name]);
      const ref = reference(name);
      expect(ref.parameters).toBe(COUNTS[name]);
      expect(Object.keys(model.stateDict())).toEqual(ref.keys);
    } finally {
      for (const t of [...model.parameters(), ...model.buffers()]) t.dispose();
    }
  }, 180000);
});

describe('initialization and use', () => {
  test('convolutions kaiming normal (fan_out, relu), batch norms 1 and 0, fc PyTorch\'s Linear default; numClasses', () => {
    torch.manualSeed(0);
    const model = torch.vision.models.resnet18({ numClasses: 10 });
    const sd = model.stateDict();
    const std = (k: string) => Number((sd[k] as torch.Tensor).std().item());
    expect(std('conv1.weight')).toBeCloseTo(Math.sqrt(2 / (64 * 49)), 2);
    expect(std('layer3.1.conv2.weight') / Math.sqrt(2 / (256 * 9))).toBeCloseTo(1, 1);
    expect(std('layer2.0.downsample.0.weight') / Math.sqrt(2 / 128)).toBeCloseTo(1, 1);
    for (const [k, v] of Object.entries(sd)) {
      const t = v as torch.Tensor;
      if (/bn\d\.weight$|downsample\.1\.weight$/.test(k)) expect(Number(t.eq(1).all().item())).toBe(1);
      if (/bn\d\.bias$|downsample\.1\.bias$|running_mean$/.test(k)) expect(Number(t.eq(0).all().item())).toBe(1);
    }
    expect((sd['fc.weight'] as torch.Tensor).shape).toEqual([10, 512]);
    expect(Number((sd['fc.weight'] as torch.Tensor).abs().max().item())).toBeLessThanOrEqual(1 / Math.sqrt(512));
    const zero = torch.vision.models.resnet18({ numClasses: 10, zeroInitResidual: true });
    expect(Number((zero.stateDict()['layer1.0.bn2.weight'] as torch.Tensor).abs().sum().item())).toBe(0);
  }, 120000);

  test('ResNet-18 forward on [2, 3, 32, 32] gives [2, 10] logits, and backward reaches every parameter', () => {
    torch.manualSeed(1);
    const model = torch.vision.models.resnet18({ numClasses: 10 });
    const x = torch.randn([2, 3, 32, 32]);
    const y = model.forward(x);
    expect(y.shape).toEqual([2, 10]);
    y.square().sum().backward();
    const missing = [...model.namedParameters()].filter(([, p]) => p.grad === null).map(([n]) => n);
    expect(missing).toEqual([]);
    expect(Number(model.fc.weight.grad!.abs().sum().item())).toBeGreaterThan(0);
    expect(Number(model.conv1.weight.grad!.abs().sum().item())).toBeGreaterThan(0);
    expect(Number((model.layer1.get(0) as torch.nn.Module as unknown as { bn1: torch.nn.BatchNorm2d }).bn1.numBatchesTracked!.item())).toBe(1);
  }, 180000);

  test('bad numClasses is refused', () => {
    expect(() => torch.vision.models.resnet18({ numClasses: 0 })).toThrow(/expected a positive integer for numClasses, got 0/);
  });
});
