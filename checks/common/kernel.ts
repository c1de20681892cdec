/**
 * Liqo's kernel floor: its gateway and fabric refuse to start below 5.10 (Liqo's
 * `pkg/utils/kernel/version/const.go`, `cmd/gateway/main.go`, `cmd/fabric/main.go`). Shared by
 * ENV-05 (a peering's nodes) and PF-KRN (nodes before peering).
 */

/** Parses a kernel release ("6.8.0-51-generic", "4.18.0-553.el8_10.x86_64") into [major, minor, patch]. */
export function parseKernel(release: unknown): [number, number, number] | null {
  if (typeof release !== "string") return null;
  const m = /^\s*(\d+)\.(\d+)(?:\.(\d+))?/.exec(release);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

/** The lowest kernel Liqo's gateway and fabric accept. */
export const MIN_KERNEL: readonly [number, number] = [5, 10];

/** True below {@link MIN_KERNEL}. */
export function kernelBelowMin(k: readonly [number, number, number]): boolean {
  return k[0] < MIN_KERNEL[0] || (k[0] === MIN_KERNEL[0] && k[1] < MIN_KERNEL[1]);
}
