/**
 * What grew between two V8 heap snapshots (`v8.writeHeapSnapshot()` files,
 * as `bench/soak.ts --snapshots DIR` writes them): objects grouped by type
 * and constructor (strings by their first characters), with the count and
 * self size of each group in both, largest growth first:
 *   node dist/bench/heap_diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [--top 25]
 */
import * as fs from 'fs';

interface Group { count: number; bytes: number }

function groups(file: string): Map<string, Group> {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
  const meta = snap.snapshot.meta;
  const fields: string[] = meta.node_fields;
  const types: string[] = meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const nodes: number[] = snap.nodes;
  const strings: string[] = snap.strings;
  const out = new Map<string, Group>();
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]];
    let name = strings[nodes[i + iName]] ?? '';
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = JSON.stringify(name.slice(0, 40));
    else if (name.length > 60) name = name.slice(0, 60) + '…';
    const key = `${type} ${name}`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += nodes[i + iSize];
    out.set(key, g);
  }
  return out;
}

function main(): void {
  const [before, after] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const ti = process.argv.indexOf('--top');
  const top = ti > 0 ? Number(process.argv[ti + 1]) : 25;
  if (!before || !after) throw new Error('usage: heap_diff BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]');
  const a = groups(before), b = groups(after);
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
    const x = a.get(key) ?? { count: 0, bytes: 0 }, y = b.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: y.count - x.count, bytes: y.bytes - x.bytes };
  }).sort((p, q) => q.bytes - p.bytes);
  const total = (m: Map<string, Group>) => [...m.values()].reduce((s, g) => s + g.bytes, 0);
  console.log(`self size: ${(total(a) / 1048576).toFixed(2)} → ${(total(b) / 1048576).toFixed(2)} MiB`);
  for (const r of rows.slice(0, top)) console.log(`${(r.bytes / 1024).toFixed(1).padStart(10)} KiB ${String(r.count).padStart(8)}  ${r.key}`);
}

main();
