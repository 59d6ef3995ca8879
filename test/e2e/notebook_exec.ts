/**
 * The article's notebooks (`notebooks/*.ipynb`) as tests see them: executed by
 * `jupyter nbconvert --execute` with the installed kernelspec, read back, and
 * looked into by cell tag, output type and MIME type.
 */
import { readFileSync } from "fs";
import { join } from "path";
import { magicMime } from "../../magics/mime";
import { ROOT } from "../helpers";

/** scripts/run-notebooks.js, which runs nbconvert for these tests and for the committed outputs alike. */
const runner: {
  executeNotebook(path: string, env: NodeJS.ProcessEnv, opts?: { cellTimeoutS?: number; recordTiming?: boolean; writeTo?: string }): Notebook;
} = require(join(ROOT, "scripts", "run-notebooks.js"));

/** A notebook's JSON (nbformat 4), loosely typed. */
export type Notebook = { cells: any[]; metadata: any };

/** Path of a notebook of the repository's `notebooks/` folder. */
export function notebookPath(name: string): string {
  return join(ROOT, "notebooks", name.endsWith(".ipynb") ? name : `${name}.ipynb`);
}

/** Reads a notebook file. */
export function readNotebookFile(path: string): Notebook {
  return JSON.parse(readFileSync(path, "utf8"));
}

/**
 * Executes a notebook through nbconvert and the tsgpu kernelspec that `env`
 * finds (see `kernelspecEnv`), stopping at the first failing cell as a reader's
 * "Run All" would, and returns the executed notebook (scripts/run-notebooks.js
 * runs nbconvert the same way for the committed outputs).
 */
export function executeNotebook(path: string, env: NodeJS.ProcessEnv, cellTimeoutS = 300): Notebook {
  return runner.executeNotebook(path, env, { cellTimeoutS });
}

/** scripts/notebook-figures.js: the figures a notebook's markdown quotes, filled from its outputs. */
const figures: { fillText(text: string, nb: Notebook): string } = require(join(ROOT, "scripts", "notebook-figures.js"));

/**
 * The committed notebook's cells as type, source and tags, and those of its `.cells.js` source with the
 * placeholders of its markdown filled from the committed notebook's outputs: equal when the committed notebook
 * was made from its source as it is, and its text quotes the figures of its own outputs.
 */
export function committedAndSource(name: string): [unknown[], unknown[]] {
  const nb = readNotebookFile(notebookPath(name));
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const cells: [string, string, { tags?: string[] }?][] = require(join(ROOT, "notebooks", `${name}.cells.js`));
  return [nb.cells.map((c) => [c.cell_type === "markdown" ? "md" : "code", cellSource(c), c.metadata?.tags ?? []]),
    cells.map(([type, text, meta]) => [type, type === "md" ? figures.fillText(text, nb) : text, meta?.tags ?? []])];
}

/** A cell's source as one string. */
export function cellSource(cell: any): string {
  return [].concat(cell.source).join("");
}

/** The code cells whose metadata.tags hold `tag`. */
export function cellsTagged(nb: Notebook, tag: string): any[] {
  return nb.cells.filter((c) => c.cell_type === "code" && (c.metadata?.tags ?? []).includes(tag));
}

/** The one code cell tagged `tag` (throws, naming the tag, when there is not exactly one). */
export function cellTagged(nb: Notebook, tag: string): any {
  const found = cellsTagged(nb, tag);
  if (found.length !== 1) throw new Error(`expected one cell tagged "${tag}", found ${found.length}`);
  return found[0];
}

/** The data under `mime` of a cell's display_data / execute_result outputs, in order. */
export function outputData(cell: any, mime: string): any[] {
  return (cell.outputs ?? []).filter((o: any) => (o.output_type === "display_data" || o.output_type === "execute_result") && o.data?.[mime] !== undefined)
    .map((o: any) => o.data[mime]);
}

/**
 * The one datum under `mime` of the cell tagged `tag` (throws, naming the tag
 * and type, when the cell shows none or several).
 */
export function taggedData(nb: Notebook, tag: string, mime = "application/json"): any {
  const found = outputData(cellTagged(nb, tag), mime);
  if (found.length !== 1) throw new Error(`expected one ${mime} output in the cell tagged "${tag}", found ${found.length}`);
  return found[0];
}

/** The data of the magic `%name` in the cell tagged `tag` (its `magicMime(name)` output). */
export function magicData(nb: Notebook, tag: string, name: string): any {
  return taggedData(nb, tag, magicMime(name));
}

/** The text a cell printed on stdout. */
export function stdoutOf(cell: any): string {
  return (cell.outputs ?? []).filter((o: any) => o.output_type === "stream" && o.name === "stdout").map((o: any) => [].concat(o.text).join("")).join("");
}

/** The error outputs of every code cell (a notebook that ran clean has none). */
export function errorOutputs(nb: Notebook): any[] {
  return nb.cells.flatMap((c) => (c.outputs ?? []).filter((o: any) => o.output_type === "error")
    .map((o: any) => ({ cell: cellSource(c).slice(0, 80), ename: o.ename, evalue: o.evalue })));
}

/** What code cells wrote to stderr (type checker warnings among it), by cell; a notebook for readers has none. */
export function stderrOutputs(nb: Notebook): { cell: string; text: string }[] {
  return nb.cells.flatMap((c) => (c.outputs ?? []).filter((o: any) => o.output_type === "stream" && o.name === "stderr")
    .map((o: any) => ({ cell: cellSource(c).slice(0, 80), text: [].concat(o.text).join("") })));
}

/**
 * The shape of a notebook's outputs, without their values: per code cell, its
 * tags and each output's type, stream name and MIME keys (and, for JSON data,
 * its top-level keys; consecutive stream outputs of one name count once). Two runs of a notebook on different machines agree on
 * this when the committed outputs are not stale.
 */
export function outputStructure(nb: Notebook): unknown[] {
  return nb.cells.filter((c) => c.cell_type === "code").map((c) => ({
    tags: c.metadata?.tags ?? [],
    // Consecutive prints to one stream may come as one message or several (when the kernel flushed between them).
    outputs: (c.outputs ?? []).filter((o: any, i: number, all: any[]) => !(o.output_type === "stream" && i > 0 && all[i - 1].output_type === "stream" && all[i - 1].name === o.name)).map((o: any) => o.output_type === "stream" ? { type: "stream", name: o.name } : o.output_type === "error" ? { type: "error", ename: o.ename } : {
      type: o.output_type,
      mimes: Object.keys(o.data ?? {}).sort(),
      json: Object.fromEntries(Object.entries(o.data ?? {}).filter(([m, v]) => m.endsWith("json") && v && typeof v === "object" && !Array.isArray(v))
        .map(([m, v]) => [m, Object.keys(v as object).sort()])),
    }),
  }));
}
