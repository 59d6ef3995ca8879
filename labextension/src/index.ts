/**
 * tsgpu's JupyterLab extension: the memory side panel (panel.ts) on the
 * right, following the active notebook, with a command to open it
 * ("tsgpu: Show Memory Panel"); and, for every notebook, live
 * `%memory --watch` views marked stopped when its kernel restarts
 * (watch_stop.ts).
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { INotebookTracker, NotebookPanel } from "@jupyterlab/notebook";
import type { Kernel } from "@jupyterlab/services";
import { MemoryPanelWidget } from "./panel";
import { stopWatchViews } from "./watch_stop";

/** The command that shows the panel. */
export const SHOW_COMMAND = "tsgpu-memory:show";

/** Watches `panel`'s kernel status and stops its live watch views on a restart, a death or a kernel change. */
function watchRestarts(panel: NotebookPanel): void {
  const ctx = panel.sessionContext;
  const onStatus = (_: unknown, status: Kernel.Status) => {
    if (status === "restarting" || status === "autorestarting") stopWatchViews(panel, "the kernel restarted");
    else if (status === "dead") stopWatchViews(panel, "the kernel died");
  };
  const onKernel = () => stopWatchViews(panel, "the kernel changed");
  ctx.statusChanged.connect(onStatus);
  ctx.kernelChanged.connect(onKernel);
  panel.disposed.connect(() => { ctx.statusChanged.disconnect(onStatus); ctx.kernelChanged.disconnect(onKernel); });
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: "tsgpu-memory:plugin",
  description: "A live side panel of a tsgpu kernel's device memory and the variables that hold it",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILabShell],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker, labShell: ILabShell | null) => {
    const widget = new MemoryPanelWidget();
    app.shell.add(widget, "right", { rank: 900 });
    tracker.currentChanged.connect((_, panel) => widget.setNotebook(panel));
    widget.setNotebook(tracker.currentWidget);
    tracker.widgetAdded.connect((_, panel) => watchRestarts(panel));
    tracker.forEach((panel) => watchRestarts(panel));
    app.commands.addCommand(SHOW_COMMAND, {
      label: "tsgpu: Show Memory Panel",
      execute: () => {
        if (labShell) labShell.expandRight();
        app.shell.activateById(widget.id);
      },
    });
  },
};

export default plugin;
