/**
 * %who [TYPE…] — the user's variables, as IPython lists them; %whos — a
 * table of them with type and data, tensors with shape, dtype, device and
 * bytes.
 */
import { inspect } from "util";
import { Magic, MagicContext } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlTable, textTable } from "./format";
import { magicMime } from "./mime";

/** "Tensor", "number", "function", "Map", "Array", … */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (typeof v !== "object" && typeof v !== "function") return typeof v;
  if (typeof v === "function") return /^class\b/.test(Function.prototype.toString.call(v)) ? "class" : "function";
  return (v as object).constructor?.name ?? "Object";
}

function variables(ctx: MagicContext, types: string[]): { name: string; value: unknown; type: string }[] {
  return ctx.namespace.names().sort()
    .map((name) => { const value = ctx.namespace.get(name); return { name, value, type: typeName(value) }; })
    .filter((v) => v.value !== undefined && (!types.length || types.includes(v.type)));
}

export const whoMagic: Magic = {
  name: "who",
  usage: "%who [TYPE ...]   (the user's variables, optionally only those of the given types, e.g. %who Tensor)",
  run(args, ctx) {
    const vars = variables(ctx, args);
    const text = vars.length ? vars.map((v) => v.name).join("\t") : args.length ? `No variables of type ${args.join(", ")}.` : "Interactive namespace is empty.";
    ctx.output.display({ "text/plain": text, [magicMime("who")]: { names: vars.map((v) => v.name) } });
  },
};

export const whosMagic: Magic = {
  name: "whos",
  usage: "%whos [TYPE ...]   (a table of the user's variables: type and data; tensors with shape, dtype, device and bytes)",
  run(args, ctx) {
    const vars = variables(ctx, args);
    if (!vars.length) {
      const text = args.length ? `No variables of type ${args.join(", ")}.` : "Interactive namespace is empty.";
      ctx.output.display({ "text/plain": text, [magicMime("whos")]: { variables: [] } });
      return;
    }
    const Tensor = ctx.runtime.Tensor as unknown as Function;
    const rows: (string | number)[][] = [["Variable", "Type", "Data/Info"]];
    const json = vars.map((v) => {
      if (typeof Tensor === "function" && v.value instanceof Tensor) {
        const t = v.value as { shape: number[]; dtype: string; device: string; nbytes: number; isDisposed?: boolean };
        const info = `[${t.shape.join(", ")}] ${t.dtype} on ${t.device}, ${formatBytes(t.nbytes)}${t.isDisposed ? " (disposed)" : ""}`;
        rows.push([v.name, v.type, info]);
        return { name: v.name, type: v.type, shape: t.shape, dtype: t.dtype, device: t.device, nbytes: t.nbytes, info };
      }
      const info = inspect(v.value, { depth: 0, breakLength: Infinity, maxArrayLength: 5, maxStringLength: 60 }).slice(0, 80);
      rows.push([v.name, v.type, info]);
      return { name: v.name, type: v.type, info };
    });
    ctx.output.display({ "text/plain": textTable(rows), "text/html": htmlBlock(htmlTable(rows)), [magicMime("whos")]: { variables: json } });
  },
};
