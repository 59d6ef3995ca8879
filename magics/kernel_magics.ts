/**
 * Magics about the kernel itself: %env (show or set environment variables),
 * %pinfo (help on a name, as `?name`), %restart (exit so that the notebook's
 * kernel manager starts a fresh kernel; IPython's kernel.do_shutdown(True)),
 * and %lsmagic.
 */
import { Magic, UsageError } from "./context";
import { escapeHtml, htmlBlock } from "./format";
import { magicMime } from "./mime";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const envMagic: Magic = {
  name: "env",
  raw: true,
  usage: "%env [NAME | NAME=VALUE | NAME VALUE]   (show all, show one, or set an environment variable)",
  run(args, ctx) {
    const text = (args[0] ?? "").trim();
    if (!text) {
      const env = Object.fromEntries(Object.entries(process.env).sort(([a], [b]) => a.localeCompare(b)));
      ctx.output.display({ "text/plain": Object.entries(env).map(([k, v]) => `${k}=${v}`).join("\n"), [magicMime("env")]: env });
      return;
    }
    const m = /^([^=\s]+)\s*(?:=\s*|\s+)([\s\S]*)$/.exec(text);
    if (!m) {
      if (!NAME.test(text)) throw new UsageError(`%env: expected a variable name, got ${text}`);
      const v = process.env[text];
      if (v === undefined) throw new UsageError(`%env: environment variable ${text} is not set`);
      ctx.output.print(v);
      return v;
    }
    const [, name, value] = m;
    if (!NAME.test(name)) throw new UsageError(`%env: expected a variable name of letters, digits and _ for NAME, got ${name}`);
    process.env[name] = value;
    ctx.output.print(`env: ${name}=${value}`);
  },
};

export const pinfoMagic: Magic = {
  name: "pinfo",
  usage: "%pinfo NAME   (help on a name: its type, signature or value, as ?NAME)",
  run(args, ctx) {
    if (args.length !== 1) throw new UsageError(`%pinfo: expected one name, got ${args.length ? args.join(" ") : "nothing"}`);
    const text = ctx.kernel.describe(args[0]) ?? `Object \`${args[0]}\` not found.`;
    ctx.output.display({ "text/plain": text, "text/html": htmlBlock(`<pre>${escapeHtml(text)}</pre>`) });
  },
};

export const restartMagic: Magic = {
  name: "restart",
  usage: "%restart   (release the kernel's native memory and exit; the notebook's kernel manager starts a fresh kernel)",
  run(args, ctx) {
    if (args.length) throw new UsageError(`%restart: expected no arguments, got ${args.join(" ")}`);
    ctx.output.print("Restarting: this kernel releases its device memory and exits once this cell is answered; the notebook's kernel manager starts a fresh kernel (its variables are gone).");
    ctx.kernel.restart();
  },
};

export const lsmagicMagic: Magic = {
  name: "lsmagic",
  usage: "%lsmagic   (list the line and cell magics)",
  run(_args, ctx) {
    const magics = ctx.kernel.magics();
    const lines = ["Line magics:", ...magics.map((m) => `  ${m.usage}`), "", `Cell magics: ${magics.filter((m) => m.cell).map((m) => "%%" + m.name).join(", ")}`];
    ctx.output.display({
      "text/plain": lines.join("\n"),
      [magicMime("lsmagic")]: { magics: magics.map((m) => m.name), line: magics.map((m) => m.name), cell: magics.filter((m) => m.cell).map((m) => m.name) },
    });
  },
};
