/**
 * The runtime loaded by more than one environment (the main thread and
 * worker threads), and environments ending before the process: each keeps
 * its own OutOfMemoryError class, none is used after its environment is gone,
 * and the process exits cleanly either way.
 */
import { runChild, runtimePath } from './helpers';

const oomIn = (where: string) => `
  try { torch.empty([64 * 1024 * 1024]); return { where: ${JSON.stringify(where)}, oom: false }; }
  catch (e) { return { where: ${JSON.stringify(where)}, name: e.name, isClass: e instanceof torch.OutOfMemoryError, code: e.code }; }`;

describe('runtime in several environments', () => {
  test('after a worker that loaded the runtime ended, out-of-memory on the main thread is its own OutOfMemoryError', () => {
    const { status, result, stderr } = runChild(`
      const { Worker } = require('worker_threads');
      const inWorker = ${JSON.stringify(`const torch = require(${JSON.stringify(runtimePath)});
        require('worker_threads').parentPort.postMessage((() => {${oomIn('worker')}})());`)};
      const w = new Worker(inWorker, { eval: true });
      let fromWorker = null;
      w.on('message', (m) => { fromWorker = m; });
      w.on('exit', () => {
        const fromMain = (() => {${oomIn('main')}})();
        console.log(JSON.stringify([fromWorker, fromMain]));
      });
    `, { env: { TSGPU_CPU_MEMORY_LIMIT: '64MiB' } });
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(result).toEqual([
      { where: 'worker', name: 'OutOfMemoryError', isClass: true, code: 'TSGPU_OOM' },
      { where: 'main', name: 'OutOfMemoryError', isClass: true, code: 'TSGPU_OOM' },
    ]);
  });

  test('process.exit after a worker that loaded the runtime ended runs the C++ teardown cleanly', () => {
    for (let i = 0; i < 3; i++) {
      const { status, stderr } = runChild(`
        torch.randn([100, 100]).sum().item();
        const w = new (require('worker_threads').Worker)(${JSON.stringify(`require(${JSON.stringify(runtimePath)}).randn([10]).sum().item()`)}, { eval: true });
        w.on('exit', () => process.exit(0));
      `, { env: { MALLOC_PERTURB_: '165' } });
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    }
  });

  test('ops on the main thread keep their arguments after a worker that ran ops ended (each thread encodes into its own buffer)', () => {
    const { status, result, stderr } = runChild(`
      const a = torch.arange(6).view([2, 3]).float();
      const before = a.add(1).sum().item();
      const w = new (require('worker_threads').Worker)(${JSON.stringify(`const t = require(${JSON.stringify(runtimePath)});
        for (let i = 0; i < 100; i++) t.ones([8]).mul(i).sum().item();`)}, { eval: true });
      w.on('exit', () => {
        const after = a.add(1).sum().item();
        const m = a.matmul(a.t()).toArray();
        console.log(JSON.stringify({ before, after, m: Array.from(m) }));
      });
    `, { env: { MALLOC_PERTURB_: '165' } });
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(result).toEqual({ before: 21, after: 21, m: [5, 14, 14, 50] });
  });
});
