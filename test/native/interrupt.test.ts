/**
 * Interrupting long ops through the shared interrupt flag: a long CPU op
 * stops between chunks, any op throws TSGPU_INTERRUPTED when it returns,
 * the failed op leaves nothing allocated, and the runtime keeps working.
 */
import { runChild } from './helpers';

// A worker sets the flag after `delayMs` and records when (Date.now()) in slot 1.
const setup = (delayMs: number) => `
  const { Worker } = require('worker_threads');
  const shared = new SharedArrayBuffer(16);
  const flag = new Int32Array(shared);
  const when = new Float64Array(shared, 8, 1);
  torch.setInterruptFlag(flag);
  const interruptLater = () => new Worker(
    'const { workerData } = require("worker_threads"); setTimeout(() => { new Float64Array(workerData, 8, 1)[0] = Date.now(); Atomics.store(new Int32Array(workerData), 0, 1); }, ${delayMs});',
    { eval: true, workerData: shared });
`;

test('a long CPU op stops between chunks, soon after the flag is set', () => {
  const { status, result, stderr } = runChild(`${setup(150)}
    const a = torch.ones([32, 32, 32, 32, 32]); // 128 MiB, broadcast against b: the strided path
    const b = torch.ones([32]);
    // Three of each, the fastest kept: on a loaded machine this process can be descheduled for tens of
    // milliseconds at any point, which would make one latency look like an op that never checks its flag.
    let full = Infinity, latency = Infinity;
    for (let i = 0; i < 3; i++) { const t0 = Date.now(); a.add(b).dispose(); full = Math.min(full, Date.now() - t0); }
    const before = torch.memory.allocated('cpu');
    let code = null, message = null;
    for (let i = 0; i < 3; i++) {
      interruptLater();
      try { for (;;) a.add(b).dispose(); } catch (e) { code = e.code; message = e.message; }
      latency = Math.min(latency, Date.now() - when[0]);
      Atomics.store(flag, 0, 0);
    }
    const after = a.add(b); // works again once the flag is cleared
    const ok = after.select(0, 0).select(0, 0).select(0, 0).select(0, 0).tolist()[0] === 2;
    console.log(JSON.stringify({ full, latency, code, message, leaked: torch.memory.allocated('cpu') - before - after.nbytes, ok }));
    process.exit(0);
  `);
  expect(stderr).toBe('');
  expect(status).toBe(0);
  expect(result.code).toBe('TSGPU_INTERRUPTED');
  expect(result.message).toBe('add: interrupted');
  expect(result.latency).toBeLessThan(Math.max(result.full / 4, 50));
  expect(result.leaked).toBe(0);
  expect(result.ok).toBe(true);
});

test('an op without chunk checks (a plain memcpy) throws when it returns; a loop of them stops', () => {
  const { status, result } = runChild(`${setup(100)}
    const x = torch.ones([16 << 20]); // 64 MiB: clone() is one memcpy
    interruptLater();
    let code = null, message = null, loopEnded = false, n = 0;
    try {
      while (n < 100000) { x.clone().dispose(); n++; }
      loopEnded = true;
    } catch (e) { code = e.code; message = e.message; }
    console.log(JSON.stringify({ code, message, loopEnded }));
    process.exit(0);
  `);
  expect(status).toBe(0);
  expect(result).toEqual({ code: 'TSGPU_INTERRUPTED', message: 'copy: interrupted', loopEnded: false });
});
