/**
 * The checker thread: holds the TypeScript language service (CellLanguage)
 * so that type checking runs beside the cell's execution and completion never
 * blocks the kernel's main thread. Used when no startup snapshot of the
 * checker is there yet (see checker_snapshot.ts).
 */
import { parentPort, workerData } from "worker_threads";
import { CellLanguage } from "./cell_language";
import { serveChecker } from "./checker_service";
import { saveTypeScriptCodeCache } from "./typescript_module";

const port = parentPort!;

serveChecker(
  { send: (m) => port.postMessage(m), onRequest: (fn) => port.on("message", fn) },
  // Always warmed up first: here that parses the libraries (seconds on a busy machine), which must be done
  // before "ready" tells the kernel that a cell's warnings come within its short wait.
  () => {
    const language = new CellLanguage(workerData.setup);
    language.warmUp();
    return language;
  },
  saveTypeScriptCodeCache,
);
