/**
 * The magics' output helpers (magics/format.ts) on their own: byte counts,
 * HTML escaping, the HTML and text tables, the bars, and the styled block.
 */
import { COLORS, escapeHtml, formatBytes, htmlBar, htmlBlock, htmlRows, htmlTable, htmlWithFallback, numericColumns, STYLE, textBar, textTable } from "../../magics/format";

describe("formatBytes", () => {
  test("bytes as integers below 1 KiB, then two decimals in the largest unit under 1024 of it", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1.00 KiB");
    expect(formatBytes(1536)).toBe("1.50 KiB");
    expect(formatBytes(1024 ** 2 - 1)).toBe(`${((1024 ** 2 - 1) / 1024).toFixed(2)} KiB`);
    expect(formatBytes(4000256)).toBe(`${(4000256 / 1024 ** 2).toFixed(2)} MiB`);
    for (const [i, unit] of ["KiB", "MiB", "GiB", "TiB", "PiB"].entries()) expect(formatBytes(3 * 1024 ** (i + 1))).toBe(`3.00 ${unit}`);
  });

  test("PiB is the largest unit; a negative count (a change) keeps its sign", () => {
    expect(formatBytes(2048 * 1024 ** 5)).toBe("2048.00 PiB");
    expect(formatBytes(-1536)).toBe("-1.50 KiB");
    expect(formatBytes(-12)).toBe("-12 B");
  });
});

describe("escapeHtml", () => {
  test("escapes &, <, > and double quotes; & first, so nothing is escaped twice", () => {
    expect(escapeHtml(`<a href="x">&amp;</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt;");
    expect(escapeHtml("plain 'text'")).toBe("plain 'text'");
  });
});

describe("tables", () => {
  const rows: (string | number)[][] = [["name", "bytes"], ["x<1>", 512], ["longer name", 4000256]];

  test("htmlTable: the first row is the header, cells escaped, numbers right-aligned, the caption escaped", () => {
    const html = htmlTable(rows, "a & b");
    expect(html.startsWith('<table class="tsgpu-memory"><caption style="text-align:left">a &amp; b</caption><thead><tr>')).toBe(true);
    expect(html).toContain('<th style="text-align:left">name</th><th class="num" style="text-align:right;white-space:nowrap">bytes</th>');
    expect(html).toContain('<td style="text-align:left">x&lt;1&gt;</td><td class="num" style="text-align:right;white-space:nowrap">512</td>');
    expect(html.match(/<tr>/g)).toHaveLength(3);
    expect(htmlTable(rows)).not.toContain("<caption>");
  });

  test("numericColumns: numbers and byte counts (with a sign, or a placeholder for none) are numeric; text is not, nor an empty column", () => {
    expect(numericColumns([["device", "freed", "change", "count", "why", "empty"],
      ["cpu", "4.00 MiB", "+1.00 MiB", 3, "-", ""], ["cuda:0", "512 B", "-12 B", "-", "2 segments (22.00 MiB)", ""]]))
      .toEqual([false, true, true, true, false, false]);
    expect(numericColumns([["bytes"], ["1.5 MiB or so"]])).toEqual([false]);
  });

  test("textTable: columns as wide as their widest cell, text padded right, numbers left, no trailing spaces", () => {
    const lines = textTable(rows).split("\n");
    expect(lines).toEqual([
      "name         bytes",
      "x<1>             512",
      "longer name  4000256",
    ]);
    const width = "longer name".length;
    for (const l of lines) expect(l.slice(width, width + 2)).toBe("  ");
    for (const l of lines) expect(l).toBe(l.trimEnd());
  });

  test("htmlRows: cells as given (already HTML), numeric columns marked and aligned in their style attribute, an optional class and caption", () => {
    const html = htmlRows([["a", "b"], ["<i>1</i>", "2"]], [false, true], "cap", "wide");
    expect(html).toBe('<table class="wide"><caption style="text-align:left">cap</caption><thead><tr><th style="text-align:left">a</th><th class="num" style="text-align:right;white-space:nowrap">b</th></tr></thead>'
      + '<tbody><tr><td style="text-align:left"><i>1</i></td><td class="num" style="text-align:right;white-space:nowrap">2</td></tr></tbody></table>');
    expect(htmlRows([["a"]], [false])).toBe('<table><thead><tr><th style="text-align:left">a</th></tr></thead><tbody></tbody></table>');
  });

  test("htmlWithFallback: the styled part hidden until the <style> element shows it, the plain part hidden by it", () => {
    expect(htmlWithFallback("<svg/>", "<table/>")).toBe('<div class="tsgpu-styled" hidden="hidden"><svg/></div><div class="tsgpu-unstyled"><table/></div>');
    // Only in the block whose <style> element they follow (htmlBlock puts it first).
    expect(STYLE).toContain(".tsgpu-out>style~.tsgpu-styled[hidden]{display:block}");
    expect(STYLE).toContain(".tsgpu-out>style~.tsgpu-unstyled,.tsgpu-out>style~* .tsgpu-unstyled{display:none}");
  });
});

describe("bars", () => {
  const percent = (html: string) => Number(/data-percent="([\d.]+)"/.exec(html)![1]);

  test("htmlBar: the share of the total, clamped to 0–100, 0 for an empty total; the tooltip names the total", () => {
    expect(percent(htmlBar(1, 4, COLORS.allocated))).toBe(25);
    expect(percent(htmlBar(5, 4, COLORS.allocated))).toBe(100);
    expect(percent(htmlBar(-1, 4, COLORS.allocated))).toBe(0);
    expect(percent(htmlBar(3, 0, COLORS.allocated))).toBe(0);
    const bar = htmlBar(1024, 3 * 1024, COLORS.reserved);
    expect(bar).toContain(`title="33.3% of ${formatBytes(3 * 1024)}"`);
    expect(bar).toContain(`width:33.33%;background:${COLORS.reserved}`);
    // Without the <style> element (an untrusted notebook), the share as text.
    expect(bar).toContain('<span class="tsgpu-unstyled">33.3%</span>');
  });

  test("textBar: filled and empty cells add up to the width", () => {
    expect(textBar(1, 4)).toBe("█".repeat(5) + "░".repeat(15));
    expect(textBar(1, 4, 8)).toBe("██░░░░░░");
    expect(textBar(9, 4, 4)).toBe("████");
    expect(textBar(1, 0, 3)).toBe("░░░");
    for (let v = 0; v <= 10; v++) expect([...textBar(v, 10, 7)]).toHaveLength(7);
  });
});

describe("htmlBlock", () => {
  test("wraps the HTML in the styled container, with the styles inline", () => {
    expect(htmlBlock("<p>x</p>")).toBe(`<div class="tsgpu-out">${STYLE}<p>x</p></div>`);
    expect(STYLE.startsWith("<style>")).toBe(true);
    expect(STYLE).not.toMatch(/@import|url\(/);
  });
});
