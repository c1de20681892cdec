/**
 * API-03: the peering's identities are valid: client certificates not expired (warn under 30 days),
 * the Tenant neither cordoned nor drained, no ResourceSlice condition Denied (Liqo's
 * `apis/authentication/v1beta1/*_types.go`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { formatAge, type Named, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { tryParseCertificate } from "../../probes/x509.ts";
import { liqoNs, peerId, tenantNs } from "./shared.ts";
import {
  fix,
  kubectl,
  kubectlIn,
  liqoctl,
  pipe,
  type RemediationStep,
  remoteKubeconfig,
  shell,
  step,
} from "../remediation.ts";

const DAY_MS = 86_400_000;

interface CertVerdict {
  status: "pass" | "warn" | "fail" | "unknown";
  line: string;
}

function judgeCert(what: string, crt: unknown, now: Date): CertVerdict | null {
  if (typeof crt !== "string" || crt === "") return null;
  const r = tryParseCertificate(crt);
  if (!r.ok) return { status: "unknown", line: `${what}: certificate unreadable (${r.error})` };
  const left = r.cert.notAfter.getTime() - now.getTime();
  const base = `${what}: subject ${r.cert.subject}, notAfter ${r.cert.notAfter.toISOString()}`;
  if (left <= 0) return { status: "fail", line: `${base}, expired ${formatAge(-left)} ago` };
  const days = left >= 2 * DAY_MS ? `${Math.floor(left / DAY_MS)} days left` : `${formatAge(left)} left`;
  return { status: left < 30 * DAY_MS ? "warn" : "pass", line: `${base}, ${days}` };
}

function api03Remediation(ctx: CheckContext, fails: string[], certs: boolean): RemediationStep[] {
  const id = peerId(ctx), ns = tenantNs(ctx), lns = liqoNs(ctx);
  const cordoned = fails.some((f) => f.includes("tenantCondition"));
  const denied = fails.some((f) => f.includes("Denied"));
  const active = `{"spec":{"tenantCondition":"Active"}}`;
  const crt = "jsonpath={.items[*].spec.authParams.signedCRT}";
  return fix(
    cordoned && liqoctl("local", "uncordon", "tenant", id),
    cordoned && step(kubectlIn("local", ns, "patch", "tenant", id, "--type=merge", "-p", active), "or:"),
    denied &&
      step(
        kubectlIn("local", ns, "get", "resourceslices", "-l", `${REMOTE_ID_LABEL}=${id}`, "-o", "yaml"),
        "read the Denied reason/message",
      ),
    denied &&
      "On the provider: check the Tenant condition and the available resources, then liqoctl uncordon resourceslice <name> if cordoned",
    certs &&
      pipe(
        kubectlIn("local", ns, "get", "identities", "-l", `${REMOTE_ID_LABEL}=${id}`, "-o", crt),
        shell("base64", "-d"),
        shell("openssl", "x509", "-noout", "-subject", "-enddate"),
      ),
    certs &&
      step(
        kubectl("local", "get", "renews", "-A"),
        "Certificates are renewed through Renew objects replicated by liqo-crd-replicator:",
      ),
    certs && kubectlIn("local", lns, "logs", "deploy/liqo-crd-replicator"),
    certs &&
      step(
        liqoctl("consumer", "peer", remoteKubeconfig("provider")),
        "If renewal is stuck, re-authenticate from the consumer:",
      ),
  );
}

function run(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const id = peerId(ctx);
  const now = ctx.cluster.now;
  const byPeer = <T extends Named>(list: readonly T[] | null): T[] | null =>
    list?.filter((o) => o.metadata.labels?.[REMOTE_ID_LABEL] === id) ?? null;
  const identities = byPeer(inv.tryItems("identities")),
    tenants = byPeer(inv.tryItems("tenants")),
    slices = byPeer(inv.tryItems("resourceslices"));
  if (identities === null && tenants === null && slices === null) {
    return { status: "unknown", summary: "Identities, Tenants and ResourceSlices are all unreadable" };
  }
  if (!identities?.length && !tenants?.length) {
    return { status: "skip", summary: "no Identity or Tenant for this peer (authentication not set up)" };
  }
  const verdicts: CertVerdict[] = [];
  const fails: string[] = [];
  for (const i of identities ?? []) {
    const v = judgeCert(
      `Identity ${i.metadata.namespace}/${i.metadata.name} (${i.spec?.type ?? "?"})`,
      i.spec?.authParams?.signedCRT,
      now,
    );
    if (v) verdicts.push(v);
  }
  for (const t of tenants ?? []) {
    const cond = t.spec?.tenantCondition ?? "Active";
    if (cond === "Cordoned" || cond === "Drained") {
      fails.push(`Tenant ${t.metadata.namespace}/${t.metadata.name}: tenantCondition ${cond}`);
    }
    const v = judgeCert(
      `Tenant ${t.metadata.namespace}/${t.metadata.name} issued`,
      t.status?.authParams?.signedCRT,
      now,
    );
    if (v) verdicts.push(v);
  }
  for (const s of slices ?? []) {
    for (const c of s.status?.conditions ?? []) {
      if (c?.status === "Denied") {
        fails.push(
          `ResourceSlice ${s.metadata.namespace}/${s.metadata.name}: ${c.type}=Denied${
            c.reason ? ` (${c.reason})` : ""
          }${c.message ? `: ${c.message}` : ""}`,
        );
      }
    }
  }
  const evidence = [...fails, ...verdicts.map((v) => v.line)];
  const expired = verdicts.filter((v) => v.status === "fail");
  if (fails.length || expired.length) {
    const first = fails[0] ?? expired[0].line;
    return {
      status: "fail",
      summary: expired.length && !fails.length ? `client certificate expired: ${first}` : first,
      evidence,
      remediation: api03Remediation(ctx, fails, expired.length > 0),
    };
  }
  const expiring = verdicts.filter((v) => v.status === "warn");
  if (expiring.length) {
    return {
      status: "warn",
      summary: `client certificate expires in under 30 days: ${expiring[0].line}`,
      evidence,
      remediation: api03Remediation(ctx, [], true),
    };
  }
  const unreadable = verdicts.filter((v) => v.status === "unknown");
  if (unreadable.length) {
    return { status: "unknown", summary: unreadable[0].line, evidence };
  }
  return {
    status: "pass",
    summary: verdicts.length ? "identity certificates valid, tenant active" : "tenant active, nothing denied",
    evidence,
  };
}

export const API_03: CheckDef = {
  id: "API-03",
  title: "Identity validity",
  layer: "controlplane",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["foreignclusters"],
  optionalReads: ["identities", "tenants", "resourceslices"],
  explain: {
    reads: "Identities of the peer (consumer: spec.authParams.signedCRT, parsed locally), the Tenant " +
      "(provider: spec.tenantCondition, status.authParams.signedCRT) and ResourceSlice conditions " +
      "Authentication/Resources.",
    decides: "fail when a certificate has expired, the Tenant is Cordoned or Drained, or a ResourceSlice " +
      "condition is Denied; warn when a certificate expires within 30 days; skip without Identity or Tenant.",
    fixes: "liqoctl uncordon tenant; check certificate renewal (Renew objects, crd-replicator) or " +
      "re-authenticate with liqoctl peer.",
  },
  hops: [],
  run,
};
