/**
 * Kernelspecs that Jupyter Enterprise Gateway reads (`tsgpu install --gateway …`):
 *
 * - distributed: EG's DistributedProcessProxy runs `tsgpu launch` on one of
 *   the remote hosts over ssh (or directly on its own host), so tsgpu must be
 *   installed at the same path on each host;
 * - kubernetes: EG's KubernetesProcessProxy runs EG's own pod launcher
 *   (launch_kubernetes.py, in EG's image beside its Python kernelspecs), which
 *   starts a pod from the kernel image; the image's command is `tsgpu launch`,
 *   which reads KERNEL_ID, RESPONSE_ADDRESS, PUBLIC_KEY and PORT_RANGE.
 *
 * The argv holds EG's placeholders, which EG fills in for each kernel.
 */
export type GatewayMode = "distributed" | "kubernetes";

export const kGatewayModes: GatewayMode[] = ["distributed", "kubernetes"];

/** EG's process proxy class for each mode. */
export const kProcessProxy: Record<GatewayMode, string> = {
  distributed: "enterprise_gateway.services.processproxies.distributed.DistributedProcessProxy",
  kubernetes: "enterprise_gateway.services.processproxies.k8s.KubernetesProcessProxy",
};

/** Where EG's image keeps its pod launcher (with kernel-pod.yaml.j2 beside it). */
export const kDefaultPodLauncher = "/usr/local/share/jupyter/kernels/python_kubernetes/scripts/launch_kubernetes.py";

/** The launcher options with EG's placeholders. */
export const kLauncherArgs = [
  "--kernel-id", "{kernel_id}",
  "--response-address", "{response_address}",
  "--public-key", "{public_key}",
  "--port-range", "{port_range}",
];

export interface GatewaySpecOptions {
  gateway: GatewayMode;
  displayName: string;
  /** kubernetes: the kernel image (EG's `image_name`). */
  image?: string;
  /** distributed: the hosts EG spreads kernels over (else EG's --EnterpriseGatewayApp.remote_hosts). */
  remoteHosts?: string[];
  /** kubernetes: EG's launch_kubernetes.py, as a path inside EG's image. */
  podLauncher?: string;
}

/** The display name when none is given. */
export function defaultGatewayDisplayName(mode: GatewayMode): string {
  return mode === "kubernetes" ? "TypeScript (tsgpu) on Kubernetes" : "TypeScript (tsgpu) on remote hosts";
}

/** Checks the options that belong to one mode; throws naming the option. */
export function checkGatewayOptions(o: Partial<GatewaySpecOptions>): void {
  if (!o.gateway) {
    for (const [k, flag] of [["image", "--image"], ["remoteHosts", "--remote-hosts"], ["podLauncher", "--pod-launcher"]] as const) {
      if (o[k] !== undefined) throw new Error(`${flag} is for Enterprise Gateway kernelspecs: add --gateway distributed or --gateway kubernetes`);
    }
    return;
  }
  if (o.gateway === "kubernetes") {
    if (!o.image) throw new Error("expected a container image for --image with --gateway kubernetes, got none (see the Dockerfile's `kernel` target)");
    if (o.remoteHosts) throw new Error("--remote-hosts is for --gateway distributed, got --gateway kubernetes");
  } else {
    if (o.image) throw new Error("--image is for --gateway kubernetes, got --gateway distributed");
    if (o.podLauncher) throw new Error("--pod-launcher is for --gateway kubernetes, got --gateway distributed");
  }
  for (const h of o.remoteHosts ?? []) {
    if (!/^[A-Za-z0-9._-]+$/.test(h)) throw new Error(`expected host names separated by commas for --remote-hosts, got "${o.remoteHosts!.join(",")}"`);
  }
}

/**
 * kernel.json for EG; `kernelArgv` is the local `tsgpu kernel` command line (its items before `kernel` are
 * reused), `launcher` what runs it on the kernel's host (`tsgpu-launch --checker KEY`, or nothing).
 */
export function gatewayKernelSpec(o: GatewaySpecOptions, kernelArgv: string[], version: string, launcher: string[] = []): Record<string, unknown> {
  const launchCommand = [...launcher, ...kernelArgv.slice(0, kernelArgv.indexOf("kernel")), "launch"];
  const config: Record<string, unknown> = {};
  let argv: string[];
  if (o.gateway === "kubernetes") {
    config.image_name = o.image;
    argv = ["python", o.podLauncher ?? kDefaultPodLauncher, ...kLauncherArgs];
  } else {
    if (o.remoteHosts?.length) config.remote_hosts = o.remoteHosts.join(",");
    argv = [...launchCommand, ...kLauncherArgs];
  }
  return {
    argv,
    display_name: o.displayName,
    language: "typescript",
    interrupt_mode: "message",
    env: {},
    metadata: {
      process_proxy: { class_name: kProcessProxy[o.gateway], ...(Object.keys(config).length ? { config } : {}) },
      debugger: false,
      tsgpu: { version, gateway: o.gateway },
    },
  };
}
