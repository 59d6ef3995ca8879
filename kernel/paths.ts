/**
 * Files and folders the command line reads and writes, with errors of one
 * line that name the path and say what is wrong in words ("no such file",
 * "is a folder", "permission denied") instead of a system call's code.
 */
import { accessSync, constants, mkdirSync, readFileSync, statSync, writeFileSync } from "fs";
import { dirname, resolve } from "path";

/** What a failed file-system call means, in words (its code in brackets). */
export function describeFsError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  const words: Record<string, string> = {
    ENOENT: "no such file or folder",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EISDIR: "it is a folder",
    ENOTDIR: "a part of the path is not a folder",
    EROFS: "the file system is read-only",
    ENOSPC: "no space left on the device",
    EEXIST: "it exists already",
    ENAMETOOLONG: "the name is too long",
    ELOOP: "too many symbolic links",
  };
  if (code && words[code]) return `${words[code]} (${code})`;
  return (e as Error)?.message ?? String(e);
}

/**
 * Creates `dir` and the folders above it that are missing, one level at a
 * time (a recursive mkdir can spin forever where the kernel refuses new
 * entries without saying why, as under /proc). Throws one line naming the
 * folder that could not be made.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  let p = resolve(dir);
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw new Error(`cannot create the folder ${dir}: cannot read ${p}: ${describeFsError(e)}`);
      missing.push(p);
      if (dirname(p) === p) break;
      p = dirname(p);
      continue;
    }
    if (!isDir) throw new Error(`cannot create the folder ${dir}: ${p} is a file, not a folder`);
    break;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      const why = code === "ENOENT" ? `${dirname(m)} does not accept new folders (ENOENT)` : describeFsError(e);
      throw new Error(`cannot create the folder ${m}: ${why}`);
    }
  }
}

/** The text of a file, or one line naming the path: missing, a folder, unreadable. */
export function readTextFile(path: string, what = "file"): string {
  let st;
  try { st = statSync(path); } catch (e) { throw new Error(`cannot read ${path}: ${describeFsError(e)}`); }
  if (st.isDirectory()) throw new Error(`cannot read ${path}: it is a folder, expected a ${what}`);
  try { return readFileSync(path, "utf8"); } catch (e) { throw new Error(`cannot read ${path}: ${describeFsError(e)}`); }
}

/**
 * Checks, without writing anything, that `path` can be written as a file:
 * an existing file must be writable, a new one needs a writable folder.
 * Throws one line naming the path.
 */
export function checkWritableFile(path: string): void {
  const full = resolve(path);
  let st;
  try { st = statSync(full); } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`cannot write ${path}: ${describeFsError(e)}`);
  }
  if (st?.isDirectory()) throw new Error(`cannot write ${path}: it is a folder, expected a file name`);
  const target = st ? full : dirname(full);
  if (!st) {
    let dirSt;
    try { dirSt = statSync(target); } catch { throw new Error(`cannot write ${path}: its folder ${target} does not exist`); }
    if (!dirSt.isDirectory()) throw new Error(`cannot write ${path}: ${target} is not a folder`);
  }
  try { accessSync(target, constants.W_OK); } catch (e) { throw new Error(`cannot write ${path}: ${describeFsError(e)}`); }
}

/** Writes a file, or throws one line naming the path. */
export function writeTextFile(path: string, text: string): void {
  try { writeFileSync(path, text); } catch (e) { throw new Error(`cannot write ${path}: ${describeFsError(e)}`); }
}
