/**
 * A cluster's certificate authority, parsed before it is used. A CA that is no certificate would
 * otherwise reach the TLS layer, which warns once per connection ("ignoring invalid CA certificate")
 * and then blames the server ("unable to verify the first certificate"). Like client-go
 * (`x509.CertPool.AppendCertsFromPEM`), blocks that do not parse are skipped as long as one does.
 */
import { X509Certificate } from "node:crypto";
import { ToolError } from "../errors.ts";

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * The certificates of a CA bundle that parse, as PEM (one block per line group). Throws a one-line
 * {@link ToolError} naming `where` (which field of which cluster entry in which kubeconfig) when
 * none does.
 */
export function parsedCaPem(pem: string, where: string): string {
  const blocks = pem.match(CERTIFICATE_BLOCK) ?? [];
  const good: string[] = [];
  let why = "no -----BEGIN CERTIFICATE----- block";
  for (const b of blocks) {
    try {
      new X509Certificate(b);
      good.push(b);
    } catch (err) {
      why = `not an X.509 certificate: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  if (good.length === 0) throw new ToolError(`the CA cannot be parsed: ${where} holds ${why}`);
  return good.join("\n") + "\n";
}
