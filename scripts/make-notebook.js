#!/usr/bin/env node
// Writes an .ipynb from a plain list of cells, so notebooks are reviewed as code:
//   node scripts/make-notebook.js notebooks/quickstart.cells.js notebooks/quickstart.ipynb
// A cell is [type, text] or [type, text, metadata]: "md" or "code", its source, and the cell's metadata
// (for example { tags: ["reset"] }, which the notebook tests find cells by). Markdown may quote figures of the
// run as placeholders, {{TAG:PATH|FORMAT}} (scripts/notebook-figures.js): they stay as they are here, and
// scripts/run-notebooks.js replaces them with the values of the run it commits.
const { writeFileSync } = require("fs");
const { resolve } = require("path");

const lines = (s) => s.split(/(?<=\n)/);

/** The unexecuted notebook (nbformat 4.5) of a list of cells. */
function notebookFromCells(cells) {
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
  return nb;
}

module.exports = { notebookFromCells };

if (require.main === module) {
  const [src, out] = process.argv.slice(2);
  writeFileSync(out, JSON.stringify(notebookFromCells(require(resolve(src))), null, 1) + "\n");
}
