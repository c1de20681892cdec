/**
 * The images the active probes pull, pinned by digest, and how a user overrides them: `--image
 * NAME=REF` replaces one, `--image-registry MIRROR` points every default at a mirror (keeping the
 * repository path and the digest, so the mirrored image is provably the same bytes), and
 * `--print-images` lists them for whoever mirrors them into an air-gapped registry.
 */
import { ToolError } from "../../errors.ts";
import { PROBE_PORTS } from "../commands.ts";

/**
 * The default image of each role. `probe`: agnhost 2.56, the Kubernetes e2e test image (netexec
 * serves TCP/HTTP and UDP echo; the image ships curl, getent and a shell), multi-arch.
 *
 * Digest provenance: kubernetes-sigs/kueue pins exactly this reference in `hack/agnhost/Dockerfile`
 * (`FROM registry.k8s.io/e2e-test-images/agnhost:2.56@sha256:352a0503…0294`, commit
 * 064520089ed2550b8be1f6de9394082759120827) and in its older `hack/e2e-common.sh`
 * (`E2E_TEST_AGNHOST_IMAGE`), which its CI pulls on every e2e run. A digest of a multi-arch
 * image is the manifest list's digest: the same reference works on amd64 and arm64 nodes.
 */
export const PROBE_IMAGES: Readonly<Record<string, string>> = {
  probe:
    "registry.k8s.io/e2e-test-images/agnhost:2.56@sha256:352a050380078cb2a1c246357a0dfa2fcf243ee416b92ff28b44a01d1b4b0294",
};

/** What each image is for, printed by `--print-images`. */
const IMAGE_ROLES: Readonly<Record<string, string>> = {
  probe: `agnhost netexec (TCP/HTTP ${PROBE_PORTS.http}, UDP ${PROBE_PORTS.udp}), one pod per node: ` +
    "matrix, udp, service",
};

/** The names `--image NAME=REF` accepts. */
export function imageNames(): string[] {
  return Object.keys(PROBE_IMAGES);
}

/**
 * The images of a run: the defaults, each moved to `registry` when given, then the `NAME=REF`
 * overrides (an explicit reference is used as written: the registry swap does not touch it).
 * Throws a {@link ToolError} (exit 3) on a malformed override, an unknown name (listing the valid
 * ones) or a malformed registry.
 */
export function resolveImages(overrides: readonly string[], registry?: string): Record<string, string> {
  const mirror = registry === undefined ? undefined : parseRegistry(registry);
  const images: Record<string, string> = {};
  for (const [name, ref] of Object.entries(PROBE_IMAGES)) {
    images[name] = mirror === undefined ? ref : swapRegistry(ref, mirror);
  }
  for (const o of overrides) {
    const eq = o.indexOf("=");
    if (eq < 0) {
      throw new ToolError(
        `--image ${JSON.stringify(o)}: expected NAME=REF (e.g. probe=mirror.example/agnhost@sha256:…)`,
      );
    }
    const name = o.slice(0, eq).trim();
    const ref = o.slice(eq + 1).trim();
    if (!(name in PROBE_IMAGES)) {
      throw new ToolError(
        `--image ${JSON.stringify(o)}: unknown image name ${JSON.stringify(name)}; valid names: ${
          imageNames().join(", ")
        }`,
      );
    }
    const bad = badReference(ref);
    if (bad) throw new ToolError(`--image ${JSON.stringify(o)}: ${bad}`);
    images[name] = ref;
  }
  return images;
}

/** Why `ref` is not an image reference, or null when it looks like one. */
function badReference(ref: string): string | null {
  if (ref === "") return "empty image reference";
  if (/\s/.test(ref)) return "an image reference has no spaces";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref)) return "an image reference has no URL scheme (drop the https://)";
  if (
    ref.startsWith("-") || ref.startsWith("/") || ref.endsWith("/") || ref.endsWith(":") || ref.endsWith("@")
  ) {
    return `${JSON.stringify(ref)} is not an image reference`;
  }
  const at = ref.indexOf("@");
  if (at >= 0 && !/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-f]{32,}$/.test(ref.slice(at + 1))) {
    return `digest ${JSON.stringify(ref.slice(at + 1))} is not ALGORITHM:HEX (e.g. sha256:<64 hex digits>)`;
  }
  return null;
}

/** `host[:port][/path]` without a trailing slash; throws a {@link ToolError} on a URL or a blank. */
function parseRegistry(registry: string): string {
  const r = registry.trim().replace(/\/+$/, "");
  if (r === "") throw new ToolError("--image-registry: empty registry");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(r)) {
    throw new ToolError(
      `--image-registry ${
        JSON.stringify(registry)
      }: expected host[:port][/path], not a URL (drop the scheme)`,
    );
  }
  if (/[\s@]/.test(r)) {
    throw new ToolError(`--image-registry ${JSON.stringify(registry)}: not a registry host`);
  }
  return r;
}

/** True when the first component of a reference names a registry host (Docker's rule). */
function hasRegistryHost(ref: string): boolean {
  const slash = ref.indexOf("/");
  if (slash < 0) return false;
  const first = ref.slice(0, slash);
  return first.includes(".") || first.includes(":") || first === "localhost";
}

/**
 * `ref` with its registry host replaced by `mirror` (which may carry a path prefix), keeping the
 * repository path, tag and digest: `registry.k8s.io/e2e-test-images/agnhost:2.56@sha256:…` with
 * `mirror.corp:5000/k8s` → `mirror.corp:5000/k8s/e2e-test-images/agnhost:2.56@sha256:…`. A Docker
 * Hub shorthand (`busybox`) gets its implicit `library/`.
 */
export function swapRegistry(ref: string, mirror: string): string {
  if (hasRegistryHost(ref)) return `${mirror}${ref.slice(ref.indexOf("/"))}`;
  return ref.includes("/") ? `${mirror}/${ref}` : `${mirror}/library/${ref}`;
}

/**
 * The text of `--print-images`: one `NAME REF` line per image (comment lines start with `#`, so
 * `grep -v '^#'` gives a list a mirroring script can read).
 */
export function printImages(images: Readonly<Record<string, string>> = PROBE_IMAGES): string {
  const width = Math.max(...Object.keys(images).map((n) => n.length));
  const lines = [
    "# images `flyingfish probe` pulls, pinned by digest (override: --image NAME=REF, --image-registry MIRROR)",
    ...Object.entries(images).map(([name, ref]) => `${name.padEnd(width)}  ${ref}`),
    ...Object.keys(images).map((name) => `# ${name}: ${IMAGE_ROLES[name] ?? "probe image"}`),
    "# mtu and trace run in Liqo's own gateway pods (ping, tcpdump, wg): no image is pulled for them",
  ];
  return lines.join("\n") + "\n";
}
