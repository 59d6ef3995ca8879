// Source of quickstart.ipynb (node scripts/make-notebook.js notebooks/quickstart.cells.js notebooks/quickstart.ipynb).
module.exports = [
  ["md", `# tsgpu quick start

Allocate a tensor, see what it costs with \`%memory\`, free it with \`dispose()\`, and look again.
The same notebook runs on a GPU (\`cuda:0\`) and on a machine without one (\`cpu\`): host tensors go through
the same caching allocator, with the same PyTorch statistic names.`],
  ["code", `const device = torch.cuda.isAvailable() ? "cuda:0" : "cpu";
console.log(\`device: \${device}\`);
torch.cuda.isAvailable() ? torch.cuda.getDeviceProperties(0).name : torch.cuda.unavailableReason()`],
  ["md", `A 1000 × 1000 float32 tensor holds 4,000,000 bytes. The allocator rounds each block up to a multiple of
512 bytes and carves it from a 20 MiB segment (requests between 1 MiB and 10 MiB share such segments).`],
  ["code", `const x = torch.randn([1000, 1000], { device });
console.log(\`allocated: \${torch.memory.allocated(device)} bytes, reserved: \${torch.memory.reserved(device)} bytes\`);
x`],
  ["code", `%memory`],
  ["md", `\`dispose()\` frees the tensor at once. The segment stays reserved in the cache for the next allocation.`],
  ["code", `x.dispose();
console.log(\`allocated: \${torch.memory.allocated(device)} bytes, reserved: \${torch.memory.reserved(device)} bytes\`);`],
  ["code", `%memory`],
  ["md", `\`%empty_cache\` hands the cached segments back to the device.`],
  ["code", `%empty_cache`],
  ["code", `%memory --summary --abbreviated`],
];
