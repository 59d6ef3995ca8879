// The figures a notebook's text quotes, taken from the outputs of the run that is committed with it.
//
// A markdown cell of a notebook's source (notebooks/NAME.cells.js) writes a measured number as a placeholder,
//   {{TAG:PATH}}  or  {{TAG:PATH|FORMAT}}
// where TAG is the tag of one code cell, PATH a "/"-separated path into the one application/json object that
// cell displayed (object keys, array indices: "cases/0/reserved"), and FORMAT one of FORMATS below. After a run,
// scripts/run-notebooks.js fills every placeholder of the source's markdown with the value of the executed
// notebook and writes that text into the .ipynb, so the source keeps the placeholders and the committed
// notebook says the numbers its own outputs show. A placeholder whose cell, output or value is missing is an
// error, never an empty string; so is a "{{" that is not a placeholder.
"use strict";

const JSON_MIME = "application/json";
const MiB = 2 ** 20;

/** Drops the zeros after the point (and the point) of a fixed-point number's text. */
const trimZeros = (s) => s.includes(".") ? s.replace(/\.?0+$/, "") : s;

/** How a value is written into the text. Each takes the value and returns its text. */
const FORMATS = {
  /** As it is: a number as JavaScript writes it, a string as it is. */
  raw: (v) => String(v),
  /** An integer with thousands separators: 400,596,480. */
  int: (v) => Math.round(number(v)).toLocaleString("en-US"),
  /** Bytes in MiB, up to two decimals: 22 MiB, 3.81 MiB, 16.04 MiB. */
  mib: (v) => `${trimZeros((number(v) / MiB).toFixed(2))} MiB`,
  /** Bytes in MiB with one decimal: 4.6 MiB. */
  mib1: (v) => `${(number(v) / MiB).toFixed(1)} MiB`,
  /** One decimal: 315.1. */
  f1: (v) => number(v).toFixed(1),
  /** Two decimals: 0.55. */
  f2: (v) => number(v).toFixed(2),
};

function number(v) {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`expected a finite number, got ${JSON.stringify(v)}`);
  return v;
}

/** Matches one placeholder: tag, path, format. */
const PLACEHOLDER = /\{\{([A-Za-z0-9_-]+):([A-Za-z0-9_./-]+)(?:\|([a-z0-9]+))?\}\}/g;

/** The placeholders of a text, in order: { text, tag, path, format }. */
function placeholders(text) {
  return [...text.matchAll(PLACEHOLDER)].map((m) => ({ text: m[0], tag: m[1], path: m[2], format: m[3] ?? "raw" }));
}

const cellSource = (cell) => [].concat(cell.source).join("");

/** The one application/json object displayed by the one code cell tagged `tag` (throws, naming what is missing). */
function taggedJson(nb, tag) {
  const cells = nb.cells.filter((c) => c.cell_type === "code" && (c.metadata?.tags ?? []).includes(tag));
  if (cells.length !== 1) throw new Error(`expected one code cell tagged "${tag}", found ${cells.length}`);
  const data = (cells[0].outputs ?? []).filter((o) => (o.output_type === "display_data" || o.output_type === "execute_result") && o.data?.[JSON_MIME] !== undefined);
  if (data.length !== 1) throw new Error(`expected one ${JSON_MIME} output in the cell tagged "${tag}", found ${data.length}`);
  return data[0].data[JSON_MIME];
}

/** The value at `path` ("a/0/b") of the JSON the cell tagged `tag` displayed. */
function figureValue(nb, tag, path) {
  let v = taggedJson(nb, tag);
  for (const key of path.split("/")) {
    if (v === null || typeof v !== "object" || !Object.prototype.hasOwnProperty.call(v, key)) {
      throw new Error(`the output of the cell tagged "${tag}" has no ${path} (no "${key}")`);
    }
    v = v[key];
  }
  if (v === null || typeof v === "object") throw new Error(`${tag}:${path} is ${JSON.stringify(v)}, not a number or a string`);
  return v;
}

/** The text of one placeholder in the notebook `nb`. */
function figureText(nb, { tag, path, format }) {
  const f = FORMATS[format];
  if (!f) throw new Error(`unknown format "${format}" in {{${tag}:${path}|${format}}} (known: ${Object.keys(FORMATS).join(", ")})`);
  try {
    return f(figureValue(nb, tag, path));
  } catch (e) {
    throw new Error(`{{${tag}:${path}${format === "raw" ? "" : "|" + format}}}: ${e.message}`);
  }
}

/** `text` with every placeholder replaced by its figure from `nb`; throws on a "{{" left that is no placeholder. */
function fillText(text, nb) {
  const filled = text.replace(PLACEHOLDER, (whole, tag, path, format = "raw") => figureText(nb, { tag, path, format }));
  const stray = /\{\{[^]*?(\}\}|$)/.exec(filled);
  if (stray) throw new Error(`not a placeholder ({{TAG:PATH|FORMAT}}): ${stray[0].slice(0, 80)}`);
  return filled;
}

/**
 * Fills the markdown of executed notebook `nb` from its source's cells (the .cells.js list, whose markdown keeps
 * the placeholders), in place, and returns nb. The two must have the same cells, in order.
 */
function fillNotebook(nb, sourceCells) {
  if (nb.cells.length !== sourceCells.length) throw new Error(`the notebook has ${nb.cells.length} cells, its source ${sourceCells.length}`);
  nb.cells.forEach((cell, i) => {
    const [type, text] = sourceCells[i];
    if ((type === "md") !== (cell.cell_type === "markdown")) throw new Error(`cell ${i} is ${cell.cell_type} in the notebook, ${type} in its source`);
    if (type === "md") cell.source = fillText(text, nb).split(/(?<=\n)/);
  });
  return nb;
}

module.exports = { FORMATS, placeholders, figureValue, figureText, fillText, fillNotebook, cellSource };
