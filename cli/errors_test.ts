import assert from "node:assert/strict";
import { requestedDocumentFormat } from "./errors.ts";

Deno.test("requestedDocumentFormat reads -o from raw arguments, for the commands whose -o is a format", () => {
  assert.equal(requestedDocumentFormat(["check", "-o", "json"]), "json");
  assert.equal(requestedDocumentFormat(["check", "--output=yaml", "--bogus"]), "yaml");
  assert.equal(requestedDocumentFormat(["demo", "-ojunit"]), "junit");
  assert.equal(requestedDocumentFormat(["check", "-o", "text"]), null);
  assert.equal(requestedDocumentFormat(["check", "-o", "markdown"]), null);
  assert.equal(requestedDocumentFormat(["report", "-o", "html"]), null);
  assert.equal(requestedDocumentFormat(["collect", "-o", "json"]), null);
  assert.equal(requestedDocumentFormat(["check", "--", "-o", "json"]), null);
});
