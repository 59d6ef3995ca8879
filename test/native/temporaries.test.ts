/**
 * Ops composed of other ops keep no temporaries: after each call (its result
 * disposed) the cpu allocator holds what it held before — every branch of
 * crossEntropy, nllLoss, embedding (maxNorm writes its weight in place),
 * dropout and scaledDotProductAttention with dropout, and round with
 * decimals, nonzero asTuple, sorting bools, bool add, integer outer,
 * logsumexp of integers, int32 indexSelect, sums cast to a dtype; a refused
 * call leaves nothing behind either. Values are checked against PyTorch in
 * torch_nn.test.ts and torch_api.test.ts.
 */
import * as torch from '../../native/index';
import { settleAllocator } from './own_memory';

torch.manualSeed(77);
// Made inside tidy: no garbage tensors of the set-up are left for the collector to free during a measurement.
const { logits, img, target, imgTarget, probs, weight, table, ids, q, logits64, divisor, zeros, flags, ints, idx32 } = torch.tidy(() => {
  const logits = torch.randn([6, 5]);
  const imgTarget = torch.randint(0, 5, [2, 3, 2]);
  return {
    logits,
    img: torch.randn([2, 5, 3, 2]),
    target: torch.tensor([0, -100, 4, 1, 2, 3], { dtype: 'int64' }),
    imgTarget,
    probs: torch.randn([6, 5]).softmax(1),
    weight: torch.rand([5]).add(0.1),
    table: torch.randn([8, 3]),
    ids: torch.randint(0, 8, [4]),
    q: torch.randn([2, 4, 3]),
    logits64: logits.double(),
    divisor: imgTarget.add(1),
    zeros: imgTarget.mul(0),
    flags: torch.rand([3, 4]).gt(0.5),
    ints: torch.randint(-3, 4, [5]).int(),
    idx32: torch.tensor([1, 0, 1], { dtype: 'int32' }),
  };
});

// The allocator's counter is what these tests read (a temporary freed from the storage table but not from the
// allocator must show): tensors that earlier test files of this jest worker dropped are freed now, and
// settleAllocator checks nothing more is pending, so none is freed during a (synchronous) measurement.
beforeEach(settleAllocator);

function leavesNothing(name: string, f: () => torch.Tensor): void {
  test(name, () => {
    f().dispose();  // a first call may size caches
    const before = torch.memory.allocated('cpu');
    f().dispose();
    expect(torch.memory.allocated('cpu')).toBe(before);
  });
}

describe('composed ops free their temporaries', () => {
  leavesNothing('crossEntropy mean', () => torch.crossEntropy(logits, target));
  leavesNothing('crossEntropy weight, smoothing, none', () => torch.crossEntropy(logits, target, { weight, labelSmoothing: 0.2, reduction: 'none' }));
  leavesNothing('crossEntropy [N, C, d1, d2] weight sum', () => torch.crossEntropy(img, imgTarget, { weight, reduction: 'sum' }));
  leavesNothing('crossEntropy probabilities weight smoothing', () => torch.crossEntropy(logits, probs, { weight, labelSmoothing: 0.1 }));
  leavesNothing('crossEntropy probabilities of another dtype', () => torch.crossEntropy(logits64, probs, { reduction: 'none' }));
  leavesNothing('nllLoss weight', () => torch.nllLoss(logits, target, { weight }));
  leavesNothing('embedding maxNorm', () => torch.embedding(ids, table, { maxNorm: 0.5 }));
  leavesNothing('dropout', () => torch.dropout(logits, 0.3));
  leavesNothing('scaledDotProductAttention dropout', () => torch.scaledDotProductAttention(q, q, q, { dropoutP: 0.2, isCausal: true }));
  leavesNothing('remainder of integers', () => imgTarget.remainder(divisor));

  leavesNothing('round decimals', () => logits.round({ decimals: 2 }));
  leavesNothing('round negative decimals', () => logits.round({ decimals: -1 }));
  leavesNothing('nonzero asTuple', () => { const parts = flags.nonzero({ asTuple: true }); parts[1].dispose(); return parts[0]; });
  leavesNothing('sort bool', () => { const r = flags.sort(1); r.indices.dispose(); return r.values; });
  leavesNothing('bool add', () => flags.add(flags));
  leavesNothing('outer of ints', () => torch.outer(ints, ints));
  leavesNothing('logsumexp of ints', () => ints.logsumexp(0));
  leavesNothing('indexSelect int32', () => logits.indexSelect(0, idx32));
  leavesNothing('sum with an integer dtype', () => flags.sum(1, { dtype: 'int32' }));

  test('a refused call leaves nothing behind', () => {
    const before = torch.memory.allocated('cpu');
    const bad = torch.tensor([0, 9, 1, 1, 2, 3], { dtype: 'int64' });
    const afterInput = torch.memory.allocated('cpu');
    expect(() => torch.crossEntropy(logits, bad)).toThrow('crossEntropy: target 9 is out of bounds for 5 classes');
    expect(() => imgTarget.div(zeros, { roundingMode: 'floor' })).toThrow("div (roundingMode 'floor'): ZeroDivisionError: integer division by zero");
    expect(torch.memory.allocated('cpu')).toBe(afterInput);
    bad.dispose();
    expect(torch.memory.allocated('cpu')).toBe(before);
  });
});
