/**
 * scripts/notebook-figures.js: the figures a notebook's text quotes come from its outputs. For every committed
 * notebook with a source (notebooks/NAME.cells.js), each placeholder of the source's markdown is filled in the
 * committed .ipynb with the value of that notebook's own outputs, and no placeholder is left unfilled. And the
 * filling itself: formats, and the errors for a placeholder that has no value.
 */
import { readdirSync, readFileSync } from "fs";
import { join } from "path";
import { ROOT } from "../helpers";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const figures = require(join(ROOT, "scripts", "notebook-figures.js"));

type Cell = { cell_type: string; source: string[] | string; metadata?: any; outputs?: any[] };
type Notebook = { cells: Cell[] };

const text = (c: Cell) => ([] as string[]).concat(c.source).join("");
const names = readdirSync(join(ROOT, "notebooks")).filter((f) => f.endsWith(".cells.js")).map((f) => f.replace(/\.cells\.js$/, "")).sort();

describe("committed notebooks quote the figures of their own outputs", () => {
  test("every notebook has its source", () => {
    expect(names.length).toBeGreaterThan(0);
    expect(names).toEqual(readdirSync(join(ROOT, "notebooks")).filter((f) => f.endsWith(".ipynb") && !f.startsWith(".")).map((f) => f.replace(/\.ipynb$/, "")).sort());
  });

  for (const name of names) {
    test(`${name}.ipynb`, () => {
      const nb: Notebook = JSON.parse(readFileSync(join(ROOT, "notebooks", `${name}.ipynb`), "utf8"));
      const source: [string, string][] = require(join(ROOT, "notebooks", `${name}.cells.js`));
      expect(nb.cells.map((c) => c.cell_type)).toEqual(source.map(([type]) => (type === "md" ? "markdown" : "code")));
      source.forEach(([type, template], i) => {
        if (type !== "md") return;
        const committed = text(nb.cells[i]);
        expect(committed).not.toMatch(/\{\{|\}\}/); // nothing left unfilled
        // The committed text is the source's, each placeholder replaced by its value in this notebook's outputs.
        const parts = template.split(/\{\{[^}]*\}\}/);
        const found = figures.placeholders(template);
        expect(found.length).toBe(parts.length - 1); // every {{…}} of the source is a placeholder
        let rest = committed;
        parts.forEach((part: string, k: number) => {
          expect({ cell: i, text: rest.slice(0, part.length) }).toEqual({ cell: i, text: part }); // the source's own words
          rest = rest.slice(part.length);
          if (k === found.length) return;
          const value = figures.figureText(nb, found[k]);
          expect({ placeholder: found[k].text, filled: rest.slice(0, value.length) }).toEqual({ placeholder: found[k].text, filled: value });
          rest = rest.slice(value.length);
        });
        expect(rest).toBe("");
      });
    });
  }
});

describe("filling placeholders", () => {
  const nb: Notebook = {
    cells: [
      { cell_type: "markdown", source: ["text"] },
      { cell_type: "code", source: ["x"], metadata: { tags: ["run"] }, outputs: [
        { output_type: "stream", name: "stdout", text: ["device: cpu\n"] },
        { output_type: "display_data", metadata: {}, data: { "application/json": {
          device: "cpu", bytes: 4787712, big: 400596480, ratio: 0.5478, cases: [{ reserved: 134217728 }], "a.b": 3 * 2 ** 20,
        }, "text/plain": "{}" } },
      ] },
      { cell_type: "code", source: ["y"], metadata: { tags: ["two"] }, outputs: [
        { output_type: "display_data", metadata: {}, data: { "application/json": { v: 1 } } },
        { output_type: "execute_result", metadata: {}, execution_count: 3, data: { "application/json": { v: 2 } } },
      ] },
    ],
  };

  test("formats", () => {
    expect(figures.fillText("on `{{run:device}}`: {{run:bytes|mib1}}, {{run:bytes|mib}}, {{run:cases/0/reserved|mib}}, {{run:a.b|mib}}", nb))
      .toBe("on `cpu`: 4.6 MiB, 4.57 MiB, 128 MiB, 3 MiB");
    expect(figures.fillText("{{run:big|int}} bytes, {{run:ratio|f2}} ×, {{run:ratio|f1}}, {{run:ratio}}", nb)).toBe("400,596,480 bytes, 0.55 ×, 0.5, 0.5478");
    expect(figures.fillText("no figures", nb)).toBe("no figures");
  });

  test("a placeholder without its value is an error that names it", () => {
    expect(() => figures.fillText("{{gone:device}}", nb)).toThrow('expected one code cell tagged "gone", found 0');
    expect(() => figures.fillText("{{run:cases/1/reserved}}", nb)).toThrow('{{run:cases/1/reserved}}: the output of the cell tagged "run" has no cases/1/reserved (no "1")');
    expect(() => figures.fillText("{{run:cases}}", nb)).toThrow("not a number or a string");
    expect(() => figures.fillText("{{run:device|mib}}", nb)).toThrow('{{run:device|mib}}: expected a finite number, got "cpu"');
    expect(() => figures.fillText("{{run:bytes|gib}}", nb)).toThrow('unknown format "gib"');
    expect(() => figures.fillText("{{two:v}}", nb)).toThrow('expected one application/json output in the cell tagged "two", found 2');
  });

  test("braces that are not a placeholder are an error, not text", () => {
    expect(() => figures.fillText("see {{run device}}", nb)).toThrow("not a placeholder ({{TAG:PATH|FORMAT}}): {{run device}}");
    expect(() => figures.fillText("see {{run:bytes", nb)).toThrow("not a placeholder");
  });

  test("fillNotebook writes the source's markdown, filled, into the executed notebook", () => {
    const executed: Notebook = JSON.parse(JSON.stringify(nb));
    figures.fillNotebook(executed, [["md", "peak {{run:bytes|mib1}}\nper step"], ["code", "x"], ["code", "y"]]);
    expect(executed.cells[0].source).toEqual(["peak 4.6 MiB\n", "per step"]);
    expect(() => figures.fillNotebook(executed, [["md", "a"]])).toThrow("the notebook has 3 cells, its source 1");
    expect(() => figures.fillNotebook(executed, [["code", "a"], ["code", "x"], ["code", "y"]])).toThrow("cell 0 is markdown in the notebook, code in its source");
  });
});
