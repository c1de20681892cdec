/**
 * A sample report (two clusters' worth of labels, two peers, one failure) for the reporter,
 * render, watch and serve tests (test-only: it lives here, not in report/).
 */
import {
  type CheckResult,
  type Report,
  type ReportResult,
  SCHEMA_VERSION,
  summarize,
} from "../../report/model.ts";
import { fix, kubectlIn, step } from "../../checks/remediation.ts";
import { printSteps } from "../../report/remediation.ts";

const LOCAL = "milan-8d1f03";
const ROME = "rome-4b2a9e";
const PARIS = "paris-77c0aa";

function r(p: Partial<CheckResult> & Pick<CheckResult, "id" | "title" | "layer">): ReportResult {
  const out: CheckResult = {
    status: "pass",
    peer: null,
    cluster: LOCAL,
    summary: "ok",
    evidence: [],
    remediation: [],
    blockedBy: null,
    skipKind: null,
    durationMs: 12,
    ...p,
  };
  if (out.status === "skip" && !p.skipKind) out.skipKind = out.blockedBy ? "blocked" : "not-applicable";
  return { ...out, remediation: printSteps(out.remediation) };
}

const GW02_FIX = fix(
  step(kubectlIn("local", "liqo-tenant-rome", "describe", "svc", "gw-rome"), "events say why"),
  "LoadBalancer pending → no LB controller, or your cloud LB cannot do UDP",
  "use --server-service-type NodePort, or install MetalLB",
);

/** A sample report; `overrides` replaces top-level fields (summary is recomputed from results). */
export function sampleReport(overrides: Partial<Report> = {}): Report {
  const results: ReportResult[] = [
    r({
      id: "ENV-01",
      title: "Liqo core components healthy",
      layer: "env",
      summary: "all 6 Liqo deployments available",
      evidence: ["liqo/liqo-controller-manager: 1/1 ready"],
    }),
    r({ id: "ENV-03", title: "Liqo CRD groups served", layer: "env", summary: "7 groups served" }),
    r({
      id: "CP-01",
      title: "ForeignCluster modules ready",
      layer: "controlplane",
      peer: ROME,
      summary: "networking, authentication, offloading ready",
    }),
    r({
      id: "CP-01",
      title: "ForeignCluster modules ready",
      layer: "controlplane",
      peer: PARIS,
      status: "warn",
      summary: "offloading module not ready for 3m",
      evidence: ["ForeignCluster paris-77c0aa: OffloadingVirtualNodeReady=False since 3m"],
      remediation: fix("check the virtual-kubelet pod in liqo-tenant-paris"),
    }),
    r({ id: "GW-01", title: "Gateway pods running", layer: "gateway", peer: ROME, summary: "1/1 running" }),
    r({
      id: "GW-02",
      title: "Gateway server service exposed",
      layer: "gateway",
      peer: ROME,
      status: "fail",
      summary: "gateway server service is not (or not usefully) exposed",
      evidence: ["liqo-tenant-milan/gw-milan: LoadBalancer stuck <pending>"],
      remediation: GW02_FIX,
      durationMs: 40,
    }),
    r({ id: "GW-01", title: "Gateway pods running", layer: "gateway", peer: PARIS, summary: "1/1 running" }),
    r({
      id: "GW-02",
      title: "Gateway server service exposed",
      layer: "gateway",
      peer: PARIS,
      summary: "NodePort",
    }),
    r({
      id: "TUN-01",
      title: "Tunnel connection established",
      layer: "tunnel",
      peer: ROME,
      status: "skip",
      summary: "blocked by GW-02",
      blockedBy: "GW-02",
      durationMs: 0,
    }),
    r({
      id: "TUN-01",
      title: "Tunnel connection established",
      layer: "tunnel",
      peer: PARIS,
      summary: "Connected",
    }),
    r({
      id: "TUN-02",
      title: "WireGuard handshake recent",
      layer: "tunnel",
      peer: PARIS,
      status: "unknown",
      summary: "cannot exec into the gateway pod",
      evidence: ["pods/exec forbidden"],
    }),
    r({
      id: "MTU-01",
      title: "Tunnel MTU matches",
      layer: "tunnel",
      status: "skip",
      summary: "no InternalFabric yet (gateway not configured)",
      durationMs: 0,
    }),
  ];
  const base: Report = {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: "flyingfish", version: "0.1.0" },
    generatedAt: "2026-03-01T10:00:00.000Z",
    mode: "live",
    snapshotTakenAt: null,
    invocation: {
      commandLine: "flyingfish check --context kind-milan",
      host: "bastion-1",
      kubeconfig: { local: null, remote: null },
    },
    clusters: [{
      name: LOCAL,
      clusterId: LOCAL,
      context: "kind-milan",
      server: "https://127.0.0.1:6443",
      role: "local",
      liqoNamespace: "liqo",
      liqoVersion: "v1.0.0",
      serverVersion: "v1.31.2",
    }],
    peers: [
      { cluster: LOCAL, clusterId: ROME, role: "Provider", tenantNamespace: "liqo-tenant-rome" },
      { cluster: LOCAL, clusterId: PARIS, role: "Provider", tenantNamespace: "liqo-tenant-paris" },
    ],
    results,
    diagnosis: {
      id: "GW-02",
      layer: "gateway",
      peer: ROME,
      cluster: LOCAL,
      summary: "gateway server service is not (or not usefully) exposed",
      remediation: printSteps(GW02_FIX),
    },
    summary: summarize(results),
    exitCode: 2,
    durationMs: 4800,
    peering: {
      foreignClusters: [{
        cluster: LOCAL,
        name: ROME,
        role: "Provider",
        age: "2d",
        modules: [
          {
            name: "networking",
            enabled: true,
            conditions: [{ type: "NetworkConnectionStatus", status: "Error", since: "2026-03-01T09:40:00Z" }],
          },
          { name: "offloading", enabled: true, conditions: [] },
        ],
      }],
      tables: [{
        title: "ResourceSlices",
        columns: ["Cluster", "Name", "Requested", "Accepted"],
        rows: [[LOCAL, "rome", "cpu=4, memory=8Gi", "cpu=4, memory=8Gi"]],
      }],
    },
    cheatSheet: [
      {
        title: "Gateway endpoint",
        value: "203.0.113.7:51820/UDP",
        command: "nc -u -v -z 203.0.113.7 51820",
        cluster: LOCAL,
        peer: ROME,
      },
      {
        title: "Remote pod CIDR (remapped)",
        value: "10.71.0.0/16",
        command: null,
        cluster: LOCAL,
        peer: ROME,
      },
    ],
    incomplete: [],
  };
  const out = { ...base, ...overrides };
  if (overrides.results && !overrides.summary) out.summary = summarize(out.results);
  return out;
}

const VOID_HTML = new Set(["meta", "br", "link", "img", "hr", "input", "path", "rect"]);

/**
 * A small well-formedness check for the XML/HTML the reporters emit: balanced tags, quoted
 * attributes, no raw `<` or stray `&` in text. `html: true` allows HTML void elements and a
 * DOCTYPE. Returns the problems found (empty when well-formed) and the element names seen.
 */
export function checkMarkup(doc: string, html = false): { errors: string[]; elements: string[] } {
  const errors: string[] = [];
  const elements: string[] = [];
  const stack: string[] = [];
  const tagRe = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
  let i = 0;
  const checkText = (t: string) => {
    if (t.includes(">") && !html) errors.push(`raw > in text: ${t.slice(0, 40)}`);
    for (const m of t.matchAll(/&([^;\s]{0,12});?/g)) {
      if (!/^&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);$/.test(m[0])) errors.push(`stray &: ${m[0]}`);
    }
  };
  while (i < doc.length) {
    const lt = doc.indexOf("<", i);
    if (lt < 0) {
      checkText(doc.slice(i));
      break;
    }
    checkText(doc.slice(i, lt));
    if (doc.startsWith("<?xml", lt)) {
      const end = doc.indexOf("?>", lt);
      i = end + 2;
      continue;
    }
    if (doc.startsWith("<!DOCTYPE", lt) && html) {
      i = doc.indexOf(">", lt) + 1;
      continue;
    }
    tagRe.lastIndex = lt;
    const m = tagRe.exec(doc);
    if (!m) {
      errors.push(`malformed tag at ${lt}: ${doc.slice(lt, lt + 60)}`);
      i = lt + 1;
      continue;
    }
    const [, close, name, attrs, self] = m;
    for (const a of attrs.matchAll(/=\s*(?:"([^"]*)"|'([^']*)')/g)) checkText(a[1] ?? a[2] ?? "");
    if (close) {
      const top = stack.pop();
      if (top !== name) errors.push(`</${name}> closes <${top}>`);
    } else {
      elements.push(name);
      if (!self && !(html && VOID_HTML.has(name.toLowerCase()))) stack.push(name);
    }
    i = tagRe.lastIndex;
  }
  if (stack.length) errors.push(`unclosed: ${stack.join(", ")}`);
  return { errors, elements };
}
