/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the
 * generated plain unary ops, one group per row of PLAIN_UNARY_OPS, so that a
 * new op of that shape is covered with no line added: float32, float64 (the
 * method), int32 (the default dtype for floating ops, kept for numeric ones),
 * a transposed input, and bool for floating ops. The values lie inside and
 * outside every op's domain (NaN on both sides).
 *
 * Shared by the PyTorch differential test (unary_ops.test.ts) and the CUDA
 * test (cuda_kernels.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { PLAIN_UNARY_OPS } from '../../../native/generated/op_list';
import { RefCase } from '../torch_reference';

type Unary = (t: torch.Tensor) => torch.Tensor;
const T = torch as unknown as Record<string, Unary>;
const method = (t: torch.Tensor, name: string): torch.Tensor => (t as unknown as Record<string, () => torch.Tensor>)[name]();

/**
 * PyTorch's expression of op `name` on variable `v` (its snake_case name).
 * silu lives in nn.functional only, and refuses integer and bool inputs
 * there, where the runtime computes them in the default dtype as its other
 * floating ops do: the reference is silu of the input in that dtype.
 */
function py(name: string, v: string): string {
  if (name === 'silu') return `torch.nn.functional.silu(${v} if ${v}.is_floating_point() else ${v}.to(torch.get_default_dtype()))`;
  return `torch.${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}(${v})`;
}

torch.manualSeed(2131);
// Values in (-0.9, 0.9) and above 1 together, so that every op's domain is met somewhere and left somewhere.
const f32 = torch.cat([torch.rand([12]).mul(1.8).sub(0.9), torch.rand([4]).add(1.05)]).reshape(4, 4);
const f64 = f32.double();
const i32 = torch.randint(-3, 4, [3, 4]).int();
const b = torch.tensor([true, false, true]);

/** The cases of each generated op, by `unary <name>`. */
export const unaryOpCases: Record<string, RefCase[]> = {};
for (const { name, dtypes } of PLAIN_UNARY_OPS) {
  const cases: RefCase[] = [
    { name: `${name} float32`, inputs: { f32 }, torch: py(name, 'f32'), run: ({ f32 }) => T[name](f32) },
    { name: `${name} float64 method`, inputs: { f64 }, torch: py(name, 'f64'), run: ({ f64 }) => method(f64, name) },
    { name: `${name} int32 (${dtypes === 'float' ? 'the default dtype' : 'kept'})`, inputs: { i32 }, torch: py(name, 'i32'), run: ({ i32 }) => T[name](i32) },
    { name: `${name} of a transpose`, inputs: { f32 }, torch: py(name, 'f32.t()'), run: ({ f32 }) => T[name](f32.t()) },
  ];
  if (dtypes === 'float') cases.push({ name: `${name} bool (the default dtype)`, inputs: { b }, torch: py(name, 'b'), run: ({ b }) => T[name](b) });
  unaryOpCases[`unary ${name}`] = cases;
}
