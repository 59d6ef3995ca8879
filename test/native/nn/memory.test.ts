/**
 * What modules hold, measured with the allocator's statistics
 * (torch.memory.allocated('cpu'), every block rounded up to 512 bytes):
 * Linear(10000, 10000) holds 381.5 MiB of float32 parameters (and allocates
 * nothing else); dispose()
 * gives them back; a forward under noGrad keeps nothing but its output,
 * with grad mode on it keeps what backward needs; after backward,
 * zeroGrad({ setToNone: true }) frees every gradient.
 */
import * as torch from '../../../native/index';
import { settleAllocator } from '../own_memory';

const { nn } = torch;
const block = (bytes: number): number => Math.ceil(bytes / 512) * 512;
const allocated = (): number => torch.memory.allocated('cpu');

class MLP extends nn.Module {
  fc1 = new nn.Linear(32, 64);
  act = new nn.ReLU();
  fc2 = new nn.Linear(64, 8);
  forward(x: torch.Tensor): torch.Tensor {
    const h = this.fc1.forward(x);
    const a = this.act.forward(h);
    h.dispose();
    const y = this.fc2.forward(a);
    a.dispose();
    return y;
  }
}

describe('module memory', () => {
  test('Linear(10000, 10000) holds 381.5 MiB of parameters (not "about 40MB")', async () => {
    await settleAllocator(); // tensors dropped by earlier tests must not be freed during the measurement
    // What the allocator counts for two bare tensors of the parameters' sizes (it rounds a block this large up to 2 MiB).
    const bare = allocated();
    const w = torch.empty([10000, 10000]);
    const b = torch.empty([10000]);
    const blocks = allocated() - bare;
    w.dispose();
    b.dispose();
    const before = allocated();
    const layer = new nn.Linear(10000, 10000);
    const held = allocated() - before;
    const params = [...layer.parameters()];
    const bytes = params.reduce((n, p) => n + p.nbytes, 0);
    expect(bytes).toBe(10000 * 10000 * 4 + 10000 * 4);
    expect((bytes / 2 ** 20).toFixed(1)).toBe('381.5');
    expect(params.every((p) => p.dtype === 'float32')).toBe(true);
    // The layer allocates its two parameters and nothing else, initialization included.
    expect(held).toBe(blocks);
    expect(held).toBeGreaterThanOrEqual(bytes);
    expect(held - bytes).toBeLessThan(2 * 2 ** 20);
    layer.dispose();
    expect(allocated()).toBe(before);
  });

  test('a forward under noGrad keeps only its output; with grad mode on it keeps the activations', async () => {
    await settleAllocator();
    const model = new MLP();
    const x = torch.randn([128, 32]);
    const outBytes = block(128 * 8 * 4);
    const base = allocated();
    const y = torch.noGrad(() => model.forward(x));
    expect(allocated() - base).toBe(outBytes);
    y.dispose();
    expect(allocated()).toBe(base);
    const yg = model.forward(x);
    const kept = allocated() - base;
    // At least the hidden activation that fc2's backward needs ([128, 64] float32).
    expect(kept).toBeGreaterThanOrEqual(outBytes + block(128 * 64 * 4));
    yg.dispose();
    expect(allocated()).toBe(base);
  });

  test('zeroGrad({ setToNone: true }) frees every gradient after backward', async () => {
    await settleAllocator();
    const model = new MLP();
    const x = torch.randn([16, 32]);
    const paramBytes = [...model.parameters()].reduce((n, p) => n + block(p.nbytes), 0);
    const base = allocated();
    const y = model.forward(x);
    const sq = y.pow(2);
    const loss = sq.mean();
    loss.backward();
    for (const t of [y, sq, loss]) t.dispose();
    // After backward and the disposal of the outputs, only the gradients are left.
    expect(allocated() - base).toBe(paramBytes);
    expect([...model.parameters()].every((p) => p.grad !== null)).toBe(true);
    model.zeroGrad();
    expect(allocated()).toBe(base);
    expect([...model.parameters()].every((p) => p.grad === null)).toBe(true);
  });
});
