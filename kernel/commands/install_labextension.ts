/**
 * `tsgpu install`'s second part: the prebuilt JupyterLab extension (the
 * memory panel, labextension/prebuilt/tsgpu-memory, kept in git and rebuilt
 * by `npm run build:labextension`) copied where JupyterLab looks for
 * federated extensions, beside the kernelspec: `share/jupyter/labextensions/`
 * of the same prefix (the user's Jupyter data folder with --user). No pip and
 * no build step: JupyterLab 4 loads it when it next starts.
 */
import { cpSync, existsSync, rmSync } from "fs";
import { dirname, join } from "path";
import { ROOT } from "../info";
import { describeFsError, makeFolders } from "../paths";
import { InstallOptions, kernelDir } from "./install";

/** The extension's name: its folder under labextensions/ and its package name. */
export const kLabextensionName = "tsgpu-memory";

/** The prebuilt extension in this checkout. */
export const PREBUILT_LABEXTENSION = join(ROOT, "labextension", "prebuilt", kLabextensionName);

/** Where `o` installs the extension: `<data dir>/labextensions/tsgpu-memory`, the kernelspec's data dir. */
export function labextensionDir(o: InstallOptions): string {
  // kernelDir is <data dir>/kernels/<name>.
  return join(dirname(dirname(kernelDir(o))), "labextensions", kLabextensionName);
}

/** Copies the prebuilt extension into `o`'s prefix, replacing an older copy; returns its folder. */
export function installLabextension(o: InstallOptions): string {
  if (!existsSync(join(PREBUILT_LABEXTENSION, "package.json"))) {
    throw new Error(`the prebuilt JupyterLab extension is missing from ${PREBUILT_LABEXTENSION} (npm run build:labextension makes it)`);
  }
  const dir = labextensionDir(o);
  try {
    rmSync(dir, { recursive: true, force: true });
    makeFolders(dirname(dir));
    cpSync(PREBUILT_LABEXTENSION, dir, { recursive: true });
  } catch (e) {
    throw new Error(`cannot install the JupyterLab extension in ${dir}: ${(e as Error).message ?? describeFsError(e)}`);
  }
  return dir;
}
