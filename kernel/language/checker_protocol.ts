/** Messages between the kernel's main thread and the checker thread. */
import type { CellDiagnostic, CompletionResult, InspectionResult } from "./cell_language";
import type { Completeness } from "./completeness_scan";
import type { ProjectSetup } from "./project";

/** What the kernel gives the build of the checker's startup snapshot, in TSGPU_CHECKER_BUILD (JSON). */
export interface SnapshotBuild {
  /** The project's setup (its cwd an empty folder: the snapshot holds no notebook's files). */
  setup: ProjectSetup;
  /** The folder of the compiled checker modules. */
  distDir: string;
  /** typescript.js. */
  typescriptFile: string;
}

export type CheckerRequest =
  /** Put a cell in the project; answer its diagnostics if asked (always answered). */
  | { kind: "analyze"; id: number; seq: number; code: string; withDiagnostics: boolean }
  /** The cell analyzed as seq ran: keep its declarations. */
  | { kind: "commit"; seq: number }
  /** Forget all declarations. */
  | { kind: "reset" }
  | { kind: "complete"; id: number; code: string; offset: number }
  | { kind: "inspect"; id: number; code: string; offset: number }
  /** is_complete's parse of a text (magic lines rewritten): the compiler the checker has loaded answers it. */
  | { kind: "isComplete"; id: number; source: string };

export type CheckerReply =
  | { kind: "ready"; ms: number; nodeTypes: boolean }
  /**
   * A cell's diagnostics, found under `version` (CellLanguage.version);
   * reusable: they hold for the same text while the version stays the same;
   * pure: the cell declares and imports nothing, so committing it is not needed.
   */
  | { kind: "diagnostics"; id: number; diagnostics: CellDiagnostic[]; version: number; reusable: boolean; pure: boolean }
  /** A commit or reset was applied; `version` is the version after it. */
  | { kind: "applied"; version: number }
  | { kind: "completion"; id: number; result: CompletionResult | null }
  | { kind: "inspection"; id: number; result: InspectionResult | null }
  | { kind: "completeness"; id: number; result: Completeness }
  /** From a checker started from a startup snapshot, once ready: whether a library file had changed since the snapshot was built. */
  | { kind: "snapshot"; stale: boolean }
  /** A request failed (id -1: the thread itself could not start). */
  | { kind: "failed"; id: number; message: string };
