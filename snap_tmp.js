const inspector = require('inspector'); const vm = require('vm');
global.torch = require('./dist/native/index');
new vm.Script(`function start() { const held = torch.randn([10,10]); return setInterval(() => held.numel, 100000); }
var h = start();
async function work() { const local = torch.randn([20]); await new Promise(r => setTimeout(r, 100000)); return local; }
var p = (async () => { await work(); })();
var dead = torch.ones([4]); dead = null;`, { filename: 'tsgpu-cell-3' }).runInThisContext();
const s = new inspector.Session(); s.connect();
const scripts = new Map();
s.on('Debugger.scriptParsed', (m) => scripts.set(m.params.scriptId, m.params.url));
s.post('Debugger.enable', {}, () => {}); s.post('Debugger.disable', {}, () => {});
let chunks = [];
s.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
s.post('HeapProfiler.takeHeapSnapshot', { captureNumericValue: true }, () => {});
const snap = JSON.parse(chunks.join(''));
const m = snap.snapshot.meta; const NF = m.node_fields.length, EF = m.edge_fields.length;
const nodes = snap.nodes, edges = snap.edges, strings = snap.strings;
const ntypes = m.node_types[0], etypes = m.edge_types[0];
const N = nodes.length / NF; const firstEdge = new Uint32Array(N+1);
for (let i = 0, e = 0; i < N; i++) { firstEdge[i] = e; e += nodes[i*NF+4]*EF; } firstEdge[N] = edges.length;
const name = (i) => strings[nodes[i*NF+1]]; const type = (i) => ntypes[nodes[i*NF]];
const edgeName = (e) => { const t = etypes[edges[e]]; return (t === 'element' || t === 'hidden') ? String(edges[e+1]) : strings[edges[e+1]]; };
// find tensors
const targets = [];
for (let i = 0; i < N; i++) if (type(i) === 'object' && name(i) === 'Tensor') targets.push(i);
console.log('tensors', targets.length, 'live', torch.memory.liveTensors().map(t=>t.id));
// BFS
const prev = new Int32Array(N).fill(-1), prevEdge = new Int32Array(N).fill(-1); const seen = new Uint8Array(N);
const q = [0]; seen[0] = 1;
while (q.length) { const i = q.shift(); for (let e = firstEdge[i]; e < firstEdge[i+1]; e += EF) { if (etypes[edges[e]] === 'weak') continue; const j = edges[e+2]/NF; if (!seen[j]) { seen[j]=1; prev[j]=i; prevEdge[j]=e; q.push(j);} } }
for (const t of targets) {
  const path = []; for (let i = t; i > 0; i = prev[i]) path.unshift(`${type(prev[i])}:${name(prev[i]).slice(0,40)} -[${etypes[edges[prevEdge[i]]]} ${edgeName(prevEdge[i])}]->`);
  const idEdge = (() => { for (let e = firstEdge[t]; e < firstEdge[t+1]; e += EF) if (edgeName(e) === 'id') return name(edges[e+2]/NF); })();
  const idNode = (() => { for (let e = firstEdge[t]; e < firstEdge[t+1]; e += EF) if (edgeName(e) === "id") return edges[e+2]/NF; })(); const sub=[]; for (let e = firstEdge[idNode]; e < firstEdge[idNode+1]; e += EF) sub.push(edgeName(e)+"="+type(edges[e+2]/NF)+":"+name(edges[e+2]/NF)); console.log("SUB", sub);
  console.log('TENSOR id', idEdge, '\n  ' + path.join('\n  '));
}
console.log(m.location_fields, snap.locations?.length);
clearInterval(h);
process.exit(0);
