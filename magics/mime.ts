/**
 * The mime type of a magic's machine-readable output. Every magic's bundle
 * carries text/plain, usually text/html, and its data as JSON under a vendor
 * type of the project's, named after the magic and versioned:
 * `application/vnd.tsgpu.memory.v1+json` for `%memory` (each of its views),
 * `application/vnd.tsgpu.reset.v1+json` for `%reset`, and so on.
 *
 * Not `application/json`: JupyterLab ranks its JSON tree above HTML and would
 * show the data as a collapsed tree instead of the table. Frontends that do
 * not know a vendor type skip it and show the HTML; programs that read
 * notebooks (nbformat, papermill, tests) find the data under the type. The
 * fields of a version only grow: a change that removes or changes a field
 * comes with a new version number. `application/json` stays for what the
 * user asks to see as JSON (`display.json`).
 */

/** The version of every magic's data type; raised when a field is removed or changes meaning. */
export const kMagicDataVersion = 1;

/** `application/vnd.tsgpu.NAME.v1+json`: the type of `%NAME`'s data (NAME as the magic is called). */
export function magicMime(name: string): string {
  return `application/vnd.tsgpu.${name}.v${kMagicDataVersion}+json`;
}

/** Whether `type` is the data type of some magic (of any version). */
export function isMagicMime(type: string): boolean {
  return /^application\/vnd\.tsgpu\.[A-Za-z_]\w*\.v\d+\+json$/.test(type);
}
