/**
 * What `tsgpu run` stores, against what nbconvert stores: lines split as Python's splitlines(True), the file
 * as nbformat writes it (compared with nbformat itself where it is installed), and outputs built from iopub
 * messages as nbclient builds them (clear_output, display ids). The whole run is compared with nbconvert's in
 * test/e2e/run.test.ts.
 */
import { spawnSync } from "child_process";
import { coalesceStreams, notebookJson, OutputBuilder, parseRunArgs, splitLines } from "../../../kernel/commands/notebook";
import type { Message } from "../../../kernel/protocol/message";
import { PY } from "../../jupyter";

/** Python's answer to `code` (which prints JSON), with `input` as JSON on stdin; null when nbformat is missing. */
function python(code: string, input: unknown): any {
  const r = spawnSync(PY, ["-c", code], { input: JSON.stringify(input), encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}
const nbformatMissing = spawnSync(PY, ["-c", "import nbformat, nbconvert"]).status !== 0;
const withNbformat = nbformatMissing ? test.skip : test;
if (nbformatMissing) console.log(`skipping the comparisons with nbformat and nbconvert: ${PY} lacks them`);

const samples = ["", "one", "a\nb", "a\nb\n", "a\r\nb\rc\n\n", "x\u2028y\u0085z\fw\vq\x1cr", "tail\r", "\n\n", "ünï\ncödé"];

test("splitLines splits as Python's splitlines(True)", () => {
  expect(splitLines("a\nb\n")).toEqual(["a\n", "b\n"]);
  expect(splitLines("a\r\nb\rc")).toEqual(["a\r\n", "b\r", "c"]);
  expect(splitLines("")).toEqual([]);
});

withNbformat("splitLines agrees with Python on every kind of line break", () => {
  const py = JSON.parse(python("import json,sys; print(json.dumps([s.splitlines(True) for s in json.load(sys.stdin)]))", samples));
  expect(samples.map(splitLines)).toEqual(py);
});

/** A notebook in memory as `tsgpu run` holds it: sources and text data as strings, keys unsorted. */
const executed = () => ({
  nbformat: 4, nbformat_minor: 5,
  metadata: { language_info: { name: "typescript", version: "5.9.3" }, kernelspec: { name: "tsgpu", language: "typescript", display_name: "TypeScript (tsgpu)" } },
  cells: [
    { id: "cell-0", cell_type: "markdown", metadata: {}, source: "# Title\n\nbody with ü and a | table" },
    { id: "cell-1", cell_type: "code", metadata: { tags: ["t"] }, execution_count: 1, source: ["const x = 1;\n", "x"], outputs: [
      { output_type: "stream", name: "stdout", text: "a\nb\n" },
      { output_type: "display_data", metadata: {}, data: { "text/plain": "line 1\nline 2", "text/html": "<b>\n</b>", "image/svg+xml": "<svg>\n</svg>",
        "application/json": { z: 1, a: [1, 2.5, "s\nt"], m: { y: null, b: true } }, "image/png": "iVBOR\nw0" } },
      { output_type: "execute_result", execution_count: 1, metadata: {}, data: { "text/plain": "1" } },
      { output_type: "error", ename: "Error", evalue: "bad", traceback: ["line\n", "two"] },
    ] },
    { id: "cell-2", cell_type: "code", metadata: {}, execution_count: null, source: "", outputs: [] },
  ],
});

withNbformat("notebookJson writes a notebook byte for byte as nbformat.writes does", () => {
  const nb = executed();
  expect(notebookJson(nb)).toBe(python("import json,sys,nbformat; sys.stdout.write(nbformat.writes(nbformat.from_dict(json.load(sys.stdin))) + '\\n')", nb));
  expect(nb.cells[0].source).toBe("# Title\n\nbody with ü and a | table"); // the notebook given is not changed
});

test("notebookJson sorts keys and splits text data into lines, leaving JSON and base64 data as they are", () => {
  const back = JSON.parse(notebookJson(executed()));
  expect(Object.keys(back)).toEqual(["cells", "metadata", "nbformat", "nbformat_minor"]);
  const data = back.cells[1].outputs[1].data;
  expect(data["text/plain"]).toEqual(["line 1\n", "line 2"]);
  expect(data["image/svg+xml"]).toEqual(["<svg>\n", "</svg>"]);
  expect(data["image/png"]).toBe("iVBOR\nw0");
  expect(Object.keys(data["application/json"])).toEqual(["a", "m", "z"]);
  expect(data["application/json"].a[2]).toBe("s\nt");
  expect(back.cells[2].source).toEqual([]);
});

let seq = 0;
function msg(type: string, content: Record<string, unknown>): Message {
  return { idents: [], header: { msg_id: String(++seq), msg_type: type } as any, parent_header: {} as any, metadata: {}, content, buffers: [] };
}
const stream = (text: string) => msg("stream", { name: "stdout", text });
const show = (text: string, id?: string, type = "display_data") =>
  msg(type, { data: { "text/plain": text }, metadata: {}, ...(id ? { transient: { display_id: id } } : {}) });

describe("OutputBuilder builds outputs as nbclient does", () => {
  test("one output per message, in order; status and execute_input add none", () => {
    const b = new OutputBuilder();
    const cell: any = { outputs: [{ old: true }] };
    const outs = b.startCell(cell);
    for (const m of [msg("execute_input", { code: "x", execution_count: 1 }), stream("a\n"), stream("b\n"), show("d"),
      msg("execute_result", { data: { "text/plain": "1" }, metadata: {}, execution_count: 1 }), msg("error", { ename: "E", evalue: "v", traceback: ["t"] })]) b.add(outs, m);
    expect(cell.outputs).toEqual([
      { output_type: "stream", name: "stdout", text: ["a\n"] },
      { output_type: "stream", name: "stdout", text: ["b\n"] },
      { output_type: "display_data", data: { "text/plain": "d" }, metadata: {} },
      { output_type: "execute_result", data: { "text/plain": "1" }, metadata: {}, execution_count: 1 },
      { output_type: "error", ename: "E", evalue: "v", traceback: ["t"] },
    ]);
  });

  test("clear_output empties at once, or with wait just before the next output", () => {
    const b = new OutputBuilder();
    const outs = b.startCell({});
    b.add(outs, stream("1\n"));
    b.add(outs, msg("clear_output", { wait: false }));
    expect(outs).toEqual([]);
    b.add(outs, stream("2\n"));
    b.add(outs, msg("clear_output", { wait: true }));
    expect(outs).toHaveLength(1);
    b.add(outs, stream("3\n"));
    expect(outs).toEqual([{ output_type: "stream", name: "stdout", text: ["3\n"] }]);
    // A clear with wait that no output followed does not reach into the next cell.
    b.add(outs, msg("clear_output", { wait: true }));
    const next = b.startCell({});
    b.add(next, stream("4\n"));
    expect(outs).toHaveLength(1);
    expect(next).toHaveLength(1);
  });

  test("a display id's outputs are updated in every cell; update_display_data adds no output", () => {
    const b = new OutputBuilder();
    const first = b.startCell({});
    b.add(first, show("v1", "chart"));
    b.add(first, show("other"));
    const second = b.startCell({});
    b.add(second, show("v2", "chart", "update_display_data"));
    expect(second).toEqual([]);
    expect(first.map((o) => o.data["text/plain"])).toEqual(["v2", "other"]);
    b.add(second, show("v3", "chart"));
    expect([first[0].data["text/plain"], second[0].data["text/plain"]]).toEqual(["v3", "v3"]);
    // Cleared outputs are no longer updated.
    b.add(second, msg("clear_output", { wait: false }));
    b.add(second, show("v4", "chart", "update_display_data"));
    expect(first[0].data["text/plain"]).toBe("v4");
    expect(second).toEqual([]);
  });
});

test("coalesceStreams merges consecutive streams of one name and drops what a carriage return overwrites", () => {
  const out = (name: string, text: string) => ({ output_type: "stream", name, text: splitLines(text) });
  const nb = { cells: [{ cell_type: "markdown", source: "x" }, { cell_type: "code", outputs: [
    out("stdout", "a\n"), out("stdout", "b"), out("stdout", "c\n"), out("stderr", "e\n"), out("stdout", "10%\r50%\r100%\nok\r\n"),
    { output_type: "display_data", data: {}, metadata: {} }, out("stdout", "z\n"),
  ] }] };
  coalesceStreams(nb);
  expect(nb.cells[1].outputs).toEqual([out("stdout", "a\nbc\n"), out("stderr", "e\n"), out("stdout", "100%\nok\r\n"),
    { output_type: "display_data", data: {}, metadata: {} }, out("stdout", "z\n")]);
});

withNbformat("coalesceStreams agrees with nbconvert's coalesce_streams", () => {
  const texts = ["a\r", "b\rc\n", "x\ry\rz", "\r\n", "p\r\rq\n"];
  const nb = { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ id: "c", cell_type: "code", execution_count: 1, metadata: {}, source: "",
    outputs: texts.map((t) => ({ output_type: "stream", name: "stdout", text: t })) }] };
  const py = python("import json,sys,nbformat\nfrom nbconvert.preprocessors import coalesce_streams\nnb=nbformat.from_dict(json.load(sys.stdin))\n" +
    "nb,_=coalesce_streams(nb,{})\nprint(json.dumps(nb.cells[0].outputs))", nb);
  coalesceStreams(nb);
  expect(nb.cells[0].outputs.map((o: any) => [].concat(o.text).join(""))).toEqual(JSON.parse(py).map((o: any) => o.text));
});

test("tsgpu run --timeout takes seconds", () => {
  expect(parseRunArgs(["a.ipynb", "--timeout", "2.5"])).toEqual({ file: "a.ipynb", options: { timeoutMs: 2500 } });
  expect(parseRunArgs(["--timeout=60", "a.ipynb"])).toEqual({ file: "a.ipynb", options: { timeoutMs: 60000 } });
  expect(() => parseRunArgs(["a.ipynb", "--timeout", "0"])).toThrow("--timeout needs a number of seconds, got 0");
  expect(() => parseRunArgs(["a.ipynb", "--timeout"])).toThrow("--timeout needs a number of seconds, got nothing");
});
