import assert from "node:assert/strict";
import { ToolError } from "../errors.ts";
import { generateTlsMaterial } from "../fakekube/mod.ts";
import { parsedCaPem } from "./ca.ts";

const BAD = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----";

Deno.test("parsedCaPem: a bundle keeps the certificates that parse, like client-go", async () => {
  const { caPem } = await generateTlsMaterial();
  const out = parsedCaPem(`${BAD}\n${caPem}`, "test CA");
  assert.ok(out.includes(caPem.trim()));
  assert.ok(!out.includes("bm90IGEgY2VydGlmaWNhdGU="));
});

Deno.test("parsedCaPem: nothing that parses is one ToolError naming where the CA came from", () => {
  for (
    const [pem, why] of [[BAD, /not an X\.509 certificate/], [
      "junk",
      /no -----BEGIN CERTIFICATE----- block/,
    ]] as const
  ) {
    assert.throws(
      () => parsedCaPem(pem, `certificate-authority /etc/ca.pem of cluster "k"`),
      (e: unknown) =>
        e instanceof ToolError &&
        e.message.startsWith(`the CA cannot be parsed: certificate-authority /etc/ca.pem`) &&
        why.test(e.message) && !e.message.includes("\n"),
    );
  }
});
