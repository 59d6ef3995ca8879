/**
 * Byte counts as people read them, in the units the kernel's magics use
 * (B, KiB, MiB, GiB, TiB; two decimals from KiB up).
 */

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/** `formatBytes(4194304)` → "4.00 MiB"; negative counts keep their sign. */
export function formatBytes(n: number): string {
  const sign = n < 0 ? "-" : "";
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${sign}${v} B` : `${sign}${v.toFixed(2)} ${UNITS[i]}`;
}
