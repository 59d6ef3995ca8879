/**
 * Differential tests against PyTorch (cpu) of the op list family by family
 * (views, creation, elementwise, reductions, shape and indexing, linear
 * algebra, printing) with PyTorch's keyword arguments and semantic corners,
 * on random inputs made by the runtime. One PyTorch process computes every group.
 */
import { compareWithTorch } from './torch_reference';
import { apiCases } from './op_cases/api';

describe('the op list against PyTorch', () =>
  compareWithTorch(Object.entries(apiCases).flatMap(([group, cases]) => cases.map((c) => ({ ...c, name: `${group}: ${c.name}` })))));
