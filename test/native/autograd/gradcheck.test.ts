/**
 * Every backward formula against central differences in float64 (gradcheck),
 * on CPU; and the coverage of the derivatives table: every op of the op list
 * has a row, and every row with a formula has a gradcheck case.
 */
import * as torch from '../../../native/index';
import { DERIVATIVES } from '../../../native/autograd/derivatives';
import { rowsMissing } from '../../../native/autograd/record';
import { GRAD_CASES } from './gradcheck_cases';

describe('derivatives table', () => {
  test('every op of the op list has a row (a formula, or not differentiable)', () => {
    expect(rowsMissing()).toEqual([]);
  });

  test('every row with a formula has a gradcheck case', () => {
    const covered = new Set(GRAD_CASES.flatMap((c) => c.rows));
    const formulas = Object.entries(DERIVATIVES).filter(([, r]) => r.backward !== undefined && !r.nondifferentiable).map(([n]) => n);
    const noFormulaInputs = new Set(['fill', 'uniform', 'normal']);
    expect(formulas.filter((n) => !covered.has(n) && !noFormulaInputs.has(n))).toEqual([]);
  });
});

describe('gradcheck (float64, cpu)', () => {
  for (const c of GRAD_CASES) {
    test(c.name, () => {
      torch.manualSeed(7);
      const xs = c.inputs.map((s) => (Array.isArray(s) ? torch.randn(s, { dtype: 'float64' }) : s()));
      for (const x of xs) if (x.dtype === 'float64') x.requiresGrad_();
      expect(torch.autograd.gradcheck(c.fn, xs, c.opts)).toBe(true);
      for (const x of xs) x.dispose();
    });
  }
});
