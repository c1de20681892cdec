import assert from "node:assert/strict";
import { ToolError } from "../../errors.ts";
import { imageNames, printImages, PROBE_IMAGES, resolveImages, swapRegistry } from "./images.ts";

const DEFAULT = PROBE_IMAGES.probe;

Deno.test("PROBE_IMAGES pins agnhost by a sha256 digest", () => {
  assert.match(DEFAULT, /^registry\.k8s\.io\/e2e-test-images\/agnhost:2\.\d+@sha256:[0-9a-f]{64}$/);
  assert.deepEqual(imageNames(), ["probe"]);
});

Deno.test("resolveImages: no flags gives the pinned defaults", () => {
  assert.deepEqual(resolveImages([]), { probe: DEFAULT });
});

Deno.test("resolveImages: --image-registry swaps the host and keeps the repository path, tag and digest", () => {
  const digest = DEFAULT.slice(DEFAULT.indexOf("@"));
  assert.equal(
    resolveImages([], "mirror.corp:5000").probe,
    `mirror.corp:5000/e2e-test-images/agnhost:2.56${digest}`,
  );
  assert.equal(
    resolveImages([], "harbor.corp/k8s/").probe,
    `harbor.corp/k8s/e2e-test-images/agnhost:2.56${digest}`,
  );
});

Deno.test("resolveImages: --image NAME=REF wins over the registry swap", () => {
  const ref = `my.registry/tools/agnhost@sha256:${"a".repeat(64)}`;
  assert.deepEqual(resolveImages([`probe=${ref}`], "mirror.corp"), { probe: ref });
  assert.deepEqual(resolveImages(["probe=agnhost:2.56"]), { probe: "agnhost:2.56" });
});

Deno.test("resolveImages: an unknown name is a tool error (exit 3) listing the valid names", () => {
  assert.throws(() => resolveImages(["netshoot=nicolaka/netshoot"]), (e: unknown) => {
    assert.ok(e instanceof ToolError);
    assert.equal(e.exitCode, 3);
    assert.match(e.message, /unknown image name "netshoot"; valid names: probe/);
    return true;
  });
});

Deno.test("resolveImages: malformed overrides and registries are tool errors saying why", () => {
  const cases: [string[], string | undefined, RegExp][] = [
    [["probe"], undefined, /expected NAME=REF/],
    [["probe="], undefined, /empty image reference/],
    [["probe=https://x.io/agnhost"], undefined, /no URL scheme/],
    [["probe=x.io/agnhost@sha256:zz"], undefined, /digest "sha256:zz" is not/],
    [["probe=a b"], undefined, /no spaces/],
    [[], "https://mirror.corp", /not a URL/],
    [[], "  ", /empty registry/],
  ];
  for (const [overrides, registry, re] of cases) {
    assert.throws(() => resolveImages(overrides, registry), (e: unknown) => {
      assert.ok(e instanceof ToolError, String(e));
      assert.match(e.message, re);
      return true;
    });
  }
});

Deno.test("swapRegistry handles Docker Hub shorthands", () => {
  assert.equal(swapRegistry("busybox:1.36", "m.io"), "m.io/library/busybox:1.36");
  assert.equal(swapRegistry("nicolaka/netshoot:v0.14", "m.io"), "m.io/nicolaka/netshoot:v0.14");
  assert.equal(swapRegistry("localhost/x:1", "m.io"), "m.io/x:1");
});

Deno.test("printImages: NAME REF lines, comments start with #", () => {
  const text = printImages(resolveImages([], "mirror.corp"));
  const data = text.split("\n").filter((l) => l && !l.startsWith("#"));
  assert.deepEqual(data.map((l) => l.split(/\s+/)), [["probe", resolveImages([], "mirror.corp").probe]]);
  assert.match(text, /--image NAME=REF/);
  assert.match(text, /netexec/);
  assert.match(text, /gateway pods/);
});
