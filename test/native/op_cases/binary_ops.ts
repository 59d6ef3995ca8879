/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the
 * generated plain binary ops and comparisons, one group per row of
 * PLAIN_BINARY_OPS, so that a new row is covered with no line added. The
 * inputs follow the row's rule: floating operands (with ties, so that eq and
 * le meet equal elements, and no zero divisor) broadcast [3, 4] with [4], a
 * number as other, int32 operands (the default dtype for `float`, refused by
 * `floating`, kept by `promote`, compared by `compare`), and the in-place form
 * where the op has one; integer operands (and bool for the bitwise ops) for
 * `bitwise` and `shift`. PyTorch's name is the row's in snake_case.
 *
 * Shared by the PyTorch differential test (binary_ops.test.ts) and the CUDA
 * test (cuda_kernels.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { PLAIN_BINARY_OPS } from '../../../native/generated/op_list';
import { RefCase } from '../torch_reference';

type Binary = (a: torch.Tensor, b: torch.Tensor | number | boolean) => torch.Tensor;
const T = torch as unknown as Record<string, Binary>;
const method = (t: torch.Tensor, name: string, other: torch.Tensor | number | boolean): torch.Tensor =>
  (t as unknown as Record<string, (o: torch.Tensor | number | boolean) => torch.Tensor>)[name](other);

/** PyTorch's name of a row (bitwiseLeftShift → bitwise_left_shift). */
export const torchName = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const a = torch.tensor([[-2, -1.5, 0, 1], [2.5, 3, -3, 0.5], [1, 1, -1, 2]]);
const b = torch.tensor([1, -1.5, 2, 0.5]);
const i = torch.tensor([[5, -3, 0, 12], [7, 1, -8, 3], [2, 9, -1, 6]], { dtype: 'int32' });
const j = torch.tensor([3, 1, 6, 2], { dtype: 'int32' });
const p = torch.tensor([[true, false, true, false], [false, false, true, true], [true, true, false, false]]);
const q = torch.tensor([true, false, false, true]);

/** The cases of each generated op, by `binary <name>`. */
export const binaryOpCases: Record<string, RefCase[]> = {};
for (const { name, rule, inplace } of PLAIN_BINARY_OPS) {
  const py = torchName(name);
  const cases: RefCase[] = [];
  if (rule === 'bitwise' || rule === 'shift') {
    cases.push(
      { name: `${name} int32, broadcast`, inputs: { i, j }, torch: `torch.${py}(i, j)`, run: ({ i, j }) => T[name](i, j) },
      { name: `${name} method, other a number`, inputs: { i }, torch: `i.${py}(2)`, run: ({ i }) => method(i, name, 2) },
    );
    if (rule === 'bitwise') cases.push({ name: `${name} bool`, inputs: { p, q }, torch: `torch.${py}(p, q)`, run: ({ p, q }) => T[name](p, q) });
    if (inplace) cases.push({ name: `${name}_ in place`, inputs: { i, j }, torch: `i.clone().${py}_(j)`, run: ({ i, j }) => method(i.clone(), `${name}_`, j) });
    cases.push({ name: `${name} of floats is refused`, inputs: { a, b }, torch: `torch.${py}(a, b)`, run: ({ a, b }) => T[name](a, b), error: /not implemented for 'float32'/ });
  } else {
    cases.push(
      { name: `${name} float32, broadcast`, inputs: { a, b }, torch: `torch.${py}(a, b)`, run: ({ a, b }) => T[name](a, b) },
      { name: `${name} method, other a number`, inputs: { a }, torch: `a.${py}(torch.tensor(1.5))`, run: ({ a }) => method(a, name, 1.5) },
      rule === 'floating'
        ? { name: `${name} int32 is refused`, inputs: { i, j }, torch: `torch.${py}(i, j)`, run: ({ i, j }) => T[name](i, j), error: new RegExp(`${name}: .*no int32 ${name} on cpu`) }
        : { name: `${name} int32`, inputs: { i, j }, torch: `torch.${py}(i, j)`, run: ({ i, j }) => T[name](i, j) },
    );
    if (inplace) {
      cases.push({ name: `${name}_ in place through a transpose`, inputs: { a, b }, torch: `a.t().clone().t().${py}_(b)`, run: ({ a, b }) => method(a.t().clone().t(), `${name}_`, b) });
    }
  }
  binaryOpCases[`binary ${name}`] = cases;
}
