#!/usr/bin/env node
// Writes an .ipynb from a plain list of cells, so notebooks are reviewed as code:
//   node scripts/make-notebook.js notebooks/quickstart.cells.js notebooks/quickstart.ipynb
// A cell is [type, text] or [type, text, metadata]: "md" or "code", its source, and the cell's metadata
// (for example { tags: ["reset"] }, which the notebook tests find cells by).
const { writeFileSync } = require("fs");
const { resolve } = require("path");
const [src, out] = process.argv.slice(2);
const cells = require(resolve(src));
const lines = (s) => s.split(/(?<=\n)/);
const nb = {
  cells: cells.map(([type, text, metadata = {}]) => type === "md"
    ? { cell_type: "markdown", metadata, source: lines(text) }
    : { cell_type: "code", execution_count: null, metadata, outputs: [], source: lines(text) }),
  metadata: {
    kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" },
    language_info: { name: "typescript", file_extension: ".ts", mimetype: "text/x-typescript" },
  },
  nbformat: 4,
  nbformat_minor: 5,
};
nb.cells.forEach((c, i) => { c.id = `cell-${i}`; });
writeFileSync(out, JSON.stringify(nb, null, 1) + "\n");
