/** Helpers for the engine and language tests: a notebook folder with packages, and waiting for the type checker. */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import type { KernelClient } from "../../kernel/transport/client";
import type { Message } from "../../kernel/protocol/message";
import { CellLanguage } from "../../kernel/language/cell_language";
import { AMBIENT_DECLARATIONS } from "../../kernel/language/ambient";
import { ROOT, ofType, sleep, startKernel } from "../helpers";

/** A fresh notebook folder whose node_modules holds the fixture packages (ESM-only and CommonJS). */
export function notebookFolder(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-notebook-"));
  for (const name of ["esm-only-fixture", "cjs-fixture"]) {
    const to = join(dir, "node_modules", name);
    mkdirSync(to, { recursive: true });
    cpSync(join(ROOT, "test", "fixtures", "packages", name), to, { recursive: true });
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A CellLanguage (the checker's object, driven directly) over a fresh notebook folder, for a whole test file:
 * made and warmed up before the file's tests, its folder removed after them. Read both in the tests.
 */
export function cellLanguageForFile(): { language(): CellLanguage; dir(): string } {
  let folder: ReturnType<typeof notebookFolder>;
  let lang: CellLanguage;
  beforeAll(() => {
    folder = notebookFolder();
    lang = new CellLanguage({ cwd: folder.dir, kernelRoot: ROOT, runtimeTypes: join(ROOT, "dist", "native"), ambient: AMBIENT_DECLARATIONS });
    lang.warmUp();
  });
  afterAll(() => folder.remove());
  return { language: () => lang, dir: () => folder.dir };
}

/** Starts a kernel in a notebook folder, with its history kept there. */
export function startKernelIn(dir: string, env: NodeJS.ProcessEnv = {}): Promise<KernelClient> {
  return startKernel({ cwd: dir, env: { ...process.env, TSGPU_HISTORY_FILE: join(dir, "history.jsonl"), ...env } });
}

/**
 * One kernel for a whole test file, started in a fresh notebook folder before
 * the file's tests (and, with `types`, once the type checker answers) and shut
 * down, with its folder removed, after them. `use` receives the kernel.
 */
export function kernelForFile(use: (k: KernelClient) => void, opts: { types?: boolean } = {}): void {
  let k: KernelClient | undefined;
  let folder: ReturnType<typeof notebookFolder> | undefined;
  beforeAll(async () => {
    folder = notebookFolder();
    k = await startKernelIn(folder.dir);
    if (opts.types) await untilTypesKnown(k);
    use(k);
  });
  afterAll(async () => { await k?.shutdown(); folder?.remove(); });
}

/** Waits until completion answers from the type checker (it parses the libraries when the kernel starts). */
export async function untilTypesKnown(k: KernelClient, timeoutMs = 50000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const { reply } = await k.request("complete_request", { code: "torch.cuda.mem", cursor_pos: 14 });
    if (reply.content.metadata?._jupyter_types_experimental) return;
    await sleep(200);
  }
  throw new Error(`the type checker did not answer within ${timeoutMs} ms\n${k.stderr}`);
}

export function stderr(outputs: Message[]): string {
  return ofType(outputs, "stream").filter((m) => m.content.name === "stderr").map((m) => m.content.text).join("");
}

/** The text/plain of a request's execute_result, or undefined. */
export function result(outputs: Message[]): string | undefined {
  return ofType(outputs, "execute_result")[0]?.content.data["text/plain"];
}
