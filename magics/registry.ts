/** The table of line magics, by name. */
import { Magic, MagicContext, UsageError } from "./context";

export class MagicRegistry {
  private readonly magics = new Map<string, Magic>();

  register(magic: Magic): void { this.magics.set(magic.name, magic); }

  names(): string[] { return [...this.magics.keys()].sort(); }

  get(name: string): Magic | undefined { return this.magics.get(name); }

  /** The options a magic's usage and help name (`--summary`, `-f`), in order; [] for an unknown magic. */
  options(name: string): string[] {
    const magic = this.magics.get(name);
    if (!magic) return [];
    const text = `${magic.usage}\n${magic.help ?? ""}`;
    return [...new Set(text.match(/(?<![\w-])--?[A-Za-z][\w-]*/g) ?? [])];
  }

  /** A magic's help (its usage line, then its help text), or null if there is no such magic. */
  help(name: string): string | null {
    const magic = this.magics.get(name);
    if (!magic) return null;
    return magic.help ? `${magic.usage}\n\n${magic.help}` : magic.usage;
  }

  async run(name: string, argText: string, ctx: MagicContext): Promise<unknown> {
    const magic = this.magics.get(name);
    if (!magic) {
      throw new UsageError(`Line magic function \`%${name}\` not found. Known magics: ${this.names().map((n) => "%" + n).join(", ")}`);
    }
    return magic.run(splitArgs(argText), ctx);
  }
}

/** Splits a magic's argument text on spaces, honouring single and double quotes. */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}
