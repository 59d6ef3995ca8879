/**
 * memorySummary must have the layout of PyTorch's torch.cuda.memory_summary():
 * compared with a table PyTorch prints for the same numbers, line by line.
 */
import * as torch from '../../native/index';
import { runChild } from './helpers';

const BAR = '='.repeat(75);
const RULE = '-'.repeat(75);

/**
 * What torch.cuda.memory_summary() prints when allocated_bytes etc. are those
 * of one 1000×1000 float32 tensor (4,000,000 bytes requested, 4,000,256
 * allocated, one 20 MiB segment), on device 0, unabbreviated.
 */
const PYTORCH_TABLE_ONE_TENSOR = [
  BAR,
  '                  PyTorch CUDA memory summary, device ID 0                 ',
  RULE,
  '            CUDA OOMs: 0            |        cudaMalloc retries: 0         ',
  BAR,
  '        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ',
  RULE,
  ' Allocated memory      |   3906 KiB |   3906 KiB |   3906 KiB |      0 B   ',
  '       from large pool |   3906 KiB |   3906 KiB |   3906 KiB |      0 B   ',
  '       from small pool |      0 KiB |      0 KiB |      0 KiB |      0 B   ',
  RULE,
  ' Active memory         |   3906 KiB |   3906 KiB |   3906 KiB |      0 B   ',
  '       from large pool |   3906 KiB |   3906 KiB |   3906 KiB |      0 B   ',
  '       from small pool |      0 KiB |      0 KiB |      0 KiB |      0 B   ',
  RULE,
  ' Requested memory      |   3906 KiB |   3906 KiB |   3906 KiB |      0 B   ',
  '       from large pool |   3906 KiB |   3906 KiB |   3906 KiB |      0 B   ',
  '       from small pool |      0 KiB |      0 KiB |      0 KiB |      0 B   ',
  RULE,
  ' GPU reserved memory   |  20480 KiB |  20480 KiB |  20480 KiB |      0 B   ',
  '       from large pool |  20480 KiB |  20480 KiB |  20480 KiB |      0 B   ',
  '       from small pool |      0 KiB |      0 KiB |      0 KiB |      0 B   ',
  RULE,
  ' Non-releasable memory |  16573 KiB |  16573 KiB |  16573 KiB |      0 B   ',
  '       from large pool |  16573 KiB |  16573 KiB |  16573 KiB |      0 B   ',
  '       from small pool |      0 KiB |      0 KiB |      0 KiB |      0 B   ',
  RULE,
  ' Allocations           |       1    |       1    |       1    |       0    ',
  '       from large pool |       1    |       1    |       1    |       0    ',
  '       from small pool |       0    |       0    |       0    |       0    ',
  RULE,
  ' Active allocs         |       1    |       1    |       1    |       0    ',
  '       from large pool |       1    |       1    |       1    |       0    ',
  '       from small pool |       0    |       0    |       0    |       0    ',
  RULE,
  ' GPU reserved segments |       1    |       1    |       1    |       0    ',
  '       from large pool |       1    |       1    |       1    |       0    ',
  '       from small pool |       0    |       0    |       0    |       0    ',
  RULE,
  ' Non-releasable allocs |       1    |       1    |       1    |       0    ',
  '       from large pool |       1    |       1    |       1    |       0    ',
  '       from small pool |       0    |       0    |       0    |       0    ',
  RULE,
  ' Oversize allocations  |       0    |       0    |       0    |       0    ',
  RULE,
  ' Oversize GPU segments |       0    |       0    |       0    |       0    ',
  BAR,
]
  .map((l) => `|${l}|`)
  .join('\n')
  .concat('\n');

/**
 * The wording that is ours, mapped back to PyTorch's: the title names tsgpu,
 * and the cpu device says "CPU"/"malloc" where CUDA says "GPU"/"cudaMalloc".
 * Every column, width and number stays where PyTorch puts it.
 */
function toPytorchWording(table: string, deviceId = 0): string {
  const lines = table.split('\n');
  const title = ` ${' '.repeat(16)} PyTorch CUDA memory summary, device ID ${String(deviceId).padEnd(17)} `;
  lines[1] = `|${title}|`;
  lines[3] = lines[3].replace('  CPU OOMs:', ' CUDA OOMs:').replace('     malloc retries:', ' cudaMalloc retries:');
  return lines
    .map((l) => l.replace(' CPU reserved memory   ', ' GPU reserved memory   ')
      .replace(' CPU reserved segments ', ' GPU reserved segments ')
      .replace(' Oversize CPU segments ', ' Oversize GPU segments '))
    .join('\n');
}

// An independent port of torch/cuda/memory.py's memory_summary, to compare
// tables for arbitrary numbers.
function formatSize(sz: number, pref: number): string {
  const prefixes = ['B  ', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let prefix = prefixes[0];
  for (const p of prefixes.slice(1)) {
    if (pref < 768 * 1024) break;
    prefix = p;
    sz = Math.floor(sz / 1024);
    pref /= 1024;
  }
  return `${String(sz).padStart(6)} ${prefix}`;
}

function formatCount(cnt: number, pref: number): string {
  const prefixes = [' ', 'K', 'M'];
  let prefix = prefixes[0];
  for (const p of prefixes.slice(1)) {
    if (pref < 750 * 1000) break;
    prefix = p;
    cnt = Math.floor(cnt / 1000);
    pref /= 1000;
  }
  return `${String(cnt).padStart(7)} ${prefix} `;
}

function pytorchSummary(stats: Record<string, number>, device: number, abbreviated: boolean): string {
  const metrics: [string, string, (a: number, b: number) => string][] = [
    ['allocated_bytes', 'Allocated memory', formatSize],
    ['active_bytes', 'Active memory', formatSize],
    ['requested_bytes', 'Requested memory', formatSize],
    ['reserved_bytes', 'GPU reserved memory', formatSize],
    ['inactive_split_bytes', 'Non-releasable memory', formatSize],
    ['allocation', 'Allocations', formatCount],
    ['active', 'Active allocs', formatCount],
    ['segment', 'GPU reserved segments', formatCount],
    ['inactive_split', 'Non-releasable allocs', formatCount],
  ];
  const lines: string[] = [];
  lines.push('='.repeat(75));
  lines.push(` ${''.padEnd(16)} PyTorch CUDA memory summary, device ID ${String(device).padEnd(17)} `);
  lines.push('-'.repeat(75));
  lines.push(
    `  ${''.padEnd(9)} CUDA OOMs: ${String(stats.num_ooms).padEnd(12)} | ${''.padEnd(6)} cudaMalloc retries: ${String(stats.num_alloc_retries).padEnd(8)}  `,
  );
  lines.push('='.repeat(75));
  lines.push('        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ');
  for (const [key, name, fmt] of metrics) {
    lines.push('-'.repeat(75));
    const subs: [string, string][] = [['all', name]];
    if (!abbreviated) subs.push(['large_pool', '      from large pool'], ['small_pool', '      from small pool']);
    let pref: number[] | null = null;
    for (const [sk, sn] of subs) {
      const p = `${key}.${sk}.`;
      const vals = ['current', 'peak', 'allocated', 'freed'].map((m) => stats[p + m]);
      if (pref === null) pref = vals;
      lines.push(` ${sn.padEnd(21)} | ${fmt(vals[0], pref[0])} | ${fmt(vals[1], pref[1])} | ${fmt(vals[2], pref[2])} | ${fmt(vals[3], pref[3])} `);
    }
  }
  for (const [key, name] of [['oversize_allocations', 'Oversize allocations'], ['oversize_segments', 'Oversize GPU segments']]) {
    lines.push('-'.repeat(75));
    const v = ['current', 'peak', 'allocated', 'freed'].map((m) => stats[`${key}.${m}`]);
    lines.push(` ${name.padEnd(21)} | ${formatCount(v[0], v[0])} | ${formatCount(v[1], v[1])} | ${formatCount(v[2], v[2])} | ${formatCount(v[3], v[3])} `);
  }
  lines.push('='.repeat(75));
  return '|' + lines.join('|\n|') + '|\n';
}

describe('memorySummary layout', () => {
  test('equals the PyTorch table for one 1000x1000 tensor', () => {
    const { result, stderr } = runChild(`
      const x = torch.randn([1000, 1000]);
      console.log(JSON.stringify(torch.memory.summary('cpu')));
    `);
    expect(stderr).toBe('');
    expect(toPytorchWording(result)).toBe(PYTORCH_TABLE_ONE_TENSOR);
    for (const line of (result as string).trimEnd().split('\n')) expect(line.length).toBe(77);
  });

  test('equals the PyTorch formatter for a mixed workload, full and abbreviated', () => {
    const { result } = runChild(`
      const keep = [];
      for (let i = 0; i < 300; i++) {
        const t = torch.empty([((i * 7919) % 5000) * 97 + 1]);
        if (i % 3 === 0) keep.push(t); else t.dispose();
      }
      const big = torch.empty([300 * 1024 * 1024]); big.dispose();
      console.log(JSON.stringify({ stats: torch.memory.stats('cpu'), full: torch.memory.summary('cpu'),
        short: torch.memory.summary('cpu', { abbreviated: true }) }));
    `);
    expect(toPytorchWording(result.full)).toBe(pytorchSummary(result.stats, 0, false));
    expect(toPytorchWording(result.short)).toBe(pytorchSummary(result.stats, 0, true));
  });

  test('large units and counts step like PyTorch', () => {
    expect(formatSize(4000256, 4000256)).toBe('  3906 KiB');
    expect(formatCount(9200000, 9200000)).toBe('   9200 K ');
    const s = torch.memory.summary('cpu', { abbreviated: true });
    expect(s.split('\n').filter((l) => l.length > 0).every((l) => l.length === 77)).toBe(true);
  });
});
