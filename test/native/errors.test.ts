/**
 * The runtime's error classes: operands whose shapes do not fit together
 * raise `torch.RuntimeError` (PyTorch's class for them) with code
 * "TSGPU_SHAPE", so a user can catch exactly that; running out of memory is
 * its subclass, as `torch.OutOfMemoryError` is in PyTorch; argument errors
 * keep their own code.
 */
import * as torch from '../../native/index';

function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected the call to throw');
}

describe('shape errors are RuntimeErrors', () => {
  const a = torch.ones(2, 3);
  const b = torch.ones(4);
  const cases: [string, () => unknown, RegExp][] = [
    ['broadcasting in add', () => a.add(b), /cannot be broadcast/],
    ['matmul', () => a.matmul(torch.ones(4, 2)), /cannot be multiplied/],
    ['view of the wrong size', () => a.view(5), /is invalid for input of size 6/],
    ['cat of mismatched shapes', () => torch.cat([a, torch.ones(2, 4)], 0), /except in dim/],
    ['stack of mismatched shapes', () => torch.stack([a, torch.ones(3, 2)]), /stack/],
    ['expand to a shape it does not broadcast to', () => a.broadcastTo([3, 3]), /cannot be broadcast/],
    ['copy_ from a source that does not broadcast', () => a.copy_(b), /cannot be broadcast/],
    ['split sizes that do not add up', () => a.split([1, 1], 1), /do not add up/],
  ];
  test.each(cases)('%s', (_name, fn, message) => {
    const e = thrown(fn);
    expect(e).toBeInstanceOf(torch.RuntimeError);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('RuntimeError');
    expect(e.code).toBe('TSGPU_SHAPE');
    expect(e.message).toMatch(message);
  });

  test('an argument error is not a RuntimeError and keeps its code', () => {
    const e = thrown(() => a.sum('a' as unknown as number));
    expect(e).not.toBeInstanceOf(torch.RuntimeError);
    expect(e.code).toBe('TSGPU_ARG');
  });
});

describe('OutOfMemoryError is a RuntimeError, as in PyTorch', () => {
  test('its class, name and code', () => {
    const e = new torch.OutOfMemoryError('cuda:0: out of memory', { device: 'cuda:0', requested: 1024 });
    expect(e).toBeInstanceOf(torch.RuntimeError);
    expect(e.name).toBe('OutOfMemoryError');
    expect(e.code).toBe('TSGPU_OOM');
    expect(e.device).toBe('cuda:0');
    expect(e.requested).toBe(1024);
  });
});
