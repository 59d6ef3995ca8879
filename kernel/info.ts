/** What the kernel says about itself in kernel_info_reply. */
import { readFileSync } from "fs";
import { join } from "path";
import type { KernelMessage } from "@jupyterlab/services";
import { PROTOCOL_VERSION } from "./protocol/message";

function packageVersion(file: string): string {
  try { return JSON.parse(readFileSync(file, "utf8")).version; } catch { return "unknown"; }
}

export const ROOT = join(__dirname, "..", "..");
export const VERSION = packageVersion(join(ROOT, "package.json"));

/**
 * The kernel_info_reply content, typed by JupyterLab's own message definitions so a missing field fails the build.
 * Every field also fits the strict schema (protocol/outbound_schema.ts) that the Rust `jupyter-protocol`
 * types set the floor of: all strings, none null; `help_links` objects of `text` and `url`; `debugger` a boolean.
 */
export function kernelInfo(): KernelMessage.IInfoReply & { debugger: boolean } {
  const tsVersion = packageVersion(join(ROOT, "node_modules", "typescript", "package.json"));
  return {
    status: "ok",
    protocol_version: PROTOCOL_VERSION,
    implementation: "tsgpu",
    implementation_version: VERSION,
    language_info: {
      name: "typescript",
      version: tsVersion,
      mimetype: "text/x-typescript",
      file_extension: ".ts",
      pygments_lexer: "typescript",
      // The name "typescript", a plain string, because every client reads it as TypeScript:
      // - JupyterLab 4 looks the mode up by name, case-insensitively, among its languages
      //   (EditorLanguageRegistry.findBest → findByName) and finds "TypeScript", i.e.
      //   javascript({typescript: true}); JupyterLab 3 (CodeMirror 5) finds it the same way.
      // - The classic Notebook (6.x) has no CodeMirror mode of that name loaded, so it looks
      //   it up in CodeMirror's mode list (findModeByName), loads the javascript mode and
      //   uses the MIME type application/typescript, which that mode defines as TypeScript.
      // - The Rust `jupyter-protocol` crate (Zed's REPL, runtimed's kernel testbed) accepts
      //   a string or {name: string, version: non-negative integer}, nothing else: the
      //   CodeMirror 5 spec {name: "javascript", typescript: true} made them reject the whole
      //   kernel_info_reply (and JupyterLab 4 highlighted it as plain JavaScript).
      codemirror_mode: "typescript",
      nbconvert_exporter: "script",
    },
    banner: `tsgpu ${VERSION}: TypeScript ${tsVersion} on Node.js ${process.version}, with the torch runtime and GPU memory magics (%memory, %reset, %empty_cache)`,
    help_links: [
      { text: "tsgpu README", url: "https://github.com/tsgpu/tsgpu#readme" },
      { text: "TypeScript handbook", url: "https://www.typescriptlang.org/docs/handbook/intro.html" },
      { text: "Node.js API", url: "https://nodejs.org/api/" },
    ],
    debugger: false,
  };
}
