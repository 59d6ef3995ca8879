/**
 * A model's and an optimizer's state dicts through torch.save / torch.load
 * (safetensors): training resumed from the files takes the same steps as
 * training that never stopped, and Python's safetensors reads the model's
 * file under PyTorch's keys.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as torch from '../../../native/index';
import { expectClose, lazyPrograms } from './torch_program';

const { nn, optim } = torch;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsgpu-nn-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function makeModel(): torch.nn.Sequential {
  return new nn.Sequential(new nn.Linear(3, 5), new nn.Tanh(), new nn.LayerNorm(5), new nn.Linear(5, 2));
}

torch.manualSeed(9);
const x = torch.randn([8, 3]);
const target = torch.randn([8, 2]);

function train(m: torch.nn.Module, opt: torch.optim.Optimizer<{ lr: number }>, steps: number): void {
  for (let s = 0; s < steps; s++) {
    opt.zeroGrad();
    const y = m.forward(x);
    const loss = torch.mseLoss(y, target);
    loss.backward();
    opt.step();
    y.dispose();
    loss.dispose();
  }
}

const model = makeModel();
const start = Object.fromEntries(Object.entries(model.stateDict()).map(([k, v]) => [k, v.clone()]));
const modelFile = path.join(dir, 'model.safetensors');
const optFile = path.join(dir, 'optim.safetensors');

describe('state dicts through torch.save and torch.load', () => {
  test('training resumed from saved model and AdamW state equals training that never stopped', () => {
    const opt = new optim.AdamW(model.parameters(), { lr: 0.02, amsgrad: true });
    train(model, opt, 3);
    torch.save(model.stateDict(), modelFile);
    torch.save(opt.stateDict(), optFile);
    train(model, opt, 3);

    const resumed = makeModel();
    resumed.loadStateDict(torch.load(modelFile) as Record<string, torch.Tensor>);
    const opt2 = new optim.AdamW(resumed.parameters(), { lr: 0.5 });
    opt2.loadStateDict(torch.load(optFile) as torch.optim.OptimizerStateDict);
    expect(opt2.paramGroups[0].lr).toBe(0.02);
    expect(opt2.paramGroups[0].amsgrad).toBe(true);
    train(resumed, opt2, 3);
    const a = model.stateDict();
    for (const [k, v] of Object.entries(resumed.stateDict())) expectClose(v, a[k], k, 0, 0);
  });

  const ref = lazyPrograms([{ code: `
from safetensors.torch import load_file
d = load_file(${JSON.stringify(modelFile)})
out["keys"] = sorted(d.keys())
m = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.LayerNorm(5), torch.nn.Linear(5, 2))
m.load_state_dict(d)
out["weight"] = m[3].weight
` }]);

  test('Python\'s safetensors and PyTorch read the saved model', () => {
    const want = ref()[0];
    if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
    expect(want.keys).toEqual(Object.keys(start).sort());
    const saved = torch.load(modelFile) as Record<string, torch.Tensor>;
    expectClose(saved['3.weight'], want.weight, '3.weight', 0, 0);
  });
});
