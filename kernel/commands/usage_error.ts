/**
 * The one rule for a command line that `tsgpu` cannot run (an unknown
 * option or command, an option without its value, options that exclude each
 * other): one line naming it and where the usage is, and exit status 2.
 */

/** A usage error of `tsgpu COMMAND` (command "" for `tsgpu` itself). */
export class UsageError extends Error {
  constructor(message: string, readonly command = "") {
    super(message);
    this.name = "UsageError";
  }
}

/** The exit status of a usage error, as most command-line tools (and Python's argparse) use. */
export const USAGE_EXIT = 2;

/** The line printed for `e`: `tsgpu CMD: MESSAGE (see "tsgpu CMD --help")`, with a newline. */
export function usageLine(e: UsageError): string {
  const cmd = e.command ? `tsgpu ${e.command}` : "tsgpu";
  return `${cmd}: ${e.message.replace(/\s*\n\s*/g, " ")} (see "${cmd} --help")\n`;
}

/**
 * Refuses options of one group given together (`--user` with `--prefix`):
 * `given` holds the options in the order given, repeats allowed.
 */
export function checkExclusive(given: string[], command: string): void {
  const distinct = [...new Set(given)];
  if (distinct.length > 1) throw new UsageError(`${distinct[0]} and ${distinct[1]} exclude each other: give one of them`, command);
}
