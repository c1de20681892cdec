import assert from "node:assert/strict";
import {
  BUNDLE_FORMAT_VERSION,
  checkFormatVersion,
  commandSlug,
  gunzip,
  jsonBytes,
  layout,
  packBundle,
  readManifest,
  safeSegment,
  tarPack,
  tarUnpack,
  unpackBundle,
} from "./bundle.ts";
import { ToolError } from "../errors.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

Deno.test("tar: round trip of empty, small, block-sized and long-path files", () => {
  const long = `flyingfish-bundle/clusters/local/exec/${"n".repeat(60)}/${"p".repeat(60)}/wireguard/${
    "c".repeat(60)
  }.json`;
  const entries = [
    { path: "a/empty.txt", data: new Uint8Array(0) },
    { path: "a/small.json", data: enc.encode('{"x":1}\n') },
    { path: "a/block.bin", data: new Uint8Array(512).fill(7) },
    { path: "a/odd.bin", data: new Uint8Array(513).map((_, i) => i & 255) },
    { path: long, data: enc.encode("long path") },
    { path: "a/ünïcødé.log", data: enc.encode("héllo") },
  ];
  const tar = tarPack(entries, new Date("2026-01-01T00:00:00Z"));
  assert.equal(tar.length % 512, 0);
  const back = tarUnpack(tar);
  assert.deepEqual(back.map((e) => e.path), entries.map((e) => e.path));
  for (let i = 0; i < entries.length; i++) assert.deepEqual(back[i].data, entries[i].data);
});

Deno.test("tar: the archive is readable by the system tar (ustar)", async () => {
  const tar = tarPack([{ path: "flyingfish-bundle/x/y.txt", data: enc.encode("hello\n") }]);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/b.tar`, tar);
    const out = await new Deno.Command("tar", {
      args: ["-tvf", `${dir}/b.tar`],
      stdout: "piped",
      stderr: "piped",
    })
      .output().catch(() => null);
    if (!out) return; // no tar binary here
    assert.equal(out.code, 0, dec.decode(out.stderr));
    assert.match(dec.decode(out.stdout), /flyingfish-bundle\/x\/y\.txt/);
    const long = `d/${"p".repeat(200)}/${"q".repeat(120)}.json`;
    await Deno.writeFile(`${dir}/l.tar`, tarPack([{ path: long, data: enc.encode("x") }]));
    const l = await new Deno.Command("tar", { args: ["-tf", `${dir}/l.tar`], stdout: "piped" }).output();
    assert.equal(dec.decode(l.stdout).trim(), long, "PAX long path understood by tar");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tar: corrupt header and truncated archives are rejected", () => {
  const tar = tarPack([{ path: "x.txt", data: enc.encode("abc") }]);
  const bad = tar.slice();
  bad[10] ^= 0xff;
  assert.throws(() => tarUnpack(bad), /checksum/);
  const withBigSize = tarPack([{ path: "x.txt", data: new Uint8Array(2000) }]).slice(0, 1024);
  assert.throws(() => tarUnpack(withBigSize), /truncated/);
});

Deno.test("bundle: gzip round trip, and non-bundles fail with a ToolError", async () => {
  const bytes = await packBundle([{ path: layout.manifest, data: jsonBytes({ a: 1 }) }]);
  assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b]);
  const files = await unpackBundle(bytes);
  assert.deepEqual(JSON.parse(dec.decode(files.get(layout.manifest)!)), { a: 1 });
  assert.ok((await gunzip(bytes)).length % 512 === 0);
  await assert.rejects(() => unpackBundle(enc.encode("not gzip at all")), ToolError);
});

Deno.test("bundle: format version — newer and older majors refused with one line", async () => {
  assert.doesNotThrow(() => checkFormatVersion({ formatVersion: BUNDLE_FORMAT_VERSION }));
  assert.throws(
    () => checkFormatVersion({ formatVersion: 2 }),
    (e: unknown) =>
      e instanceof ToolError &&
      e.message === "bundle format 2 is newer than this FlyingFish understands (1); upgrade FlyingFish",
  );
  assert.throws(() => checkFormatVersion({ formatVersion: 0 }), /older than this FlyingFish/);
  assert.throws(() => checkFormatVersion({}), /no formatVersion/);
  const files = await unpackBundle(
    await packBundle([{ path: layout.manifest, data: jsonBytes({ formatVersion: 2, whatever: true }) }]),
  );
  assert.throws(() => readManifest(files), /bundle format 2 is newer/);
  const invalid = await unpackBundle(
    await packBundle([{ path: layout.manifest, data: jsonBytes({ formatVersion: 1, clusters: "x" }) }]),
  );
  assert.throws(
    () => readManifest(invalid),
    (e: unknown) => e instanceof ToolError && /manifest/.test(e.message),
  );
});

Deno.test("bundle: layout paths are safe", () => {
  assert.equal(commandSlug(["wg", "show", "all", "dump"]), "wg-show-all-dump");
  assert.equal(commandSlug(["cat", "/sys/class/net/liqo-tunnel/mtu"]), "cat-sys-class-net-liqo-tunnel-mtu");
  assert.equal(safeSegment(".."), "_");
  assert.equal(safeSegment("a/b"), "a_b");
  assert.ok(!layout.exec("local", "../..", "p", "c", ["x"]).includes("/../"));
});
