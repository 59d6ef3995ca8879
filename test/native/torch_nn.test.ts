/**
 * Differential tests against PyTorch (cpu) of the nn functions with their
 * full signatures (crossEntropy, nllLoss, embedding, layerNorm, rmsNorm,
 * scaledDotProductAttention with dropout) and of integer division by zero,
 * on random inputs made by the runtime. One PyTorch process computes every
 * group (its start-up is most of the time).
 */
import { compareWithTorch } from './torch_reference';
import { nnCases } from './op_cases/nn';

describe('nn functions against PyTorch', () =>
  compareWithTorch(Object.entries(nnCases).flatMap(([group, cases]) => cases.map((c) => ({ ...c, name: `${group}: ${c.name}` })))));
