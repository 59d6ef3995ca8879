/**
 * Tensors dropped without dispose() are collected before they pile up: the
 * runtime asks for a collection once the memory held by JavaScript-owned
 * storages has grown by 128 MiB since the last one (more with a large live
 * set), so no allocation has to fail and retry first.
 */
import { runChild } from './helpers';

const loop = (dispose: boolean) => `
  const { native } = require(${JSON.stringify(require.resolve('../../native/addon'))});
  const x = torch.ones([1 << 20]);
  const before = native.externalMemory().forcedCollections;
  let peak = 0;
  for (let i = 0; i < 1000; i++) {
    const y = x.add(1);               // a 4 MiB temporary
    peak = Math.max(peak, torch.memory.allocated('cpu'));
    ${dispose ? 'y.dispose();' : ''}
  }
  const s = torch.memory.stats('cpu');
  console.log(JSON.stringify({ peak, retries: s.num_alloc_retries, ooms: s.num_ooms,
    forced: native.externalMemory().forcedCollections - before }));
`;

test('a loop of 1000 undisposed 4 MiB temporaries peaks at most at 256 MiB, with no retry', () => {
  const { status, result, stderr } = runChild(loop(false));
  expect(stderr).toBe('');
  expect(status).toBe(0);
  expect(result.peak).toBeLessThanOrEqual(256 * 2 ** 20);
  expect(result.retries).toBe(0);
  expect(result.ooms).toBe(0);
  expect(result.forced).toBeGreaterThan(0);
});

test('the same loop with dispose() never asks for a collection', () => {
  const { status, result } = runChild(loop(true));
  expect(status).toBe(0);
  expect(result.peak).toBeLessThanOrEqual(9 * 2 ** 20);
  expect(result.forced).toBe(0);
});
