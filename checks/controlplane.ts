/**
 * CONTROL PLANE layer: ForeignCluster module conditions, provider API server reachability, the
 * in-band API path and identity validity (CHECKS.md FC-01, API-01…03; FACTS §2.1, §2.9, §2.10, §6.4).
 */
import type { CheckContext, CheckDef, Outcome } from "./types.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { K8sObject } from "../kube/source.ts";
import { ageMs, conditionOf, formatAge, liqoNamespaceOf, REMOTE_ID_LABEL } from "../liqo/lookups.ts";
import { contains, remapAddress } from "../probes/cidr.ts";
import { tryParseCertificate } from "../probes/x509.ts";

const HEALTHY = new Set(["Ready", "Established"]);
const DAY_MS = 86_400_000;

/** Which check judges what a networking/offloading FC condition summarises. */
const POINTERS: Readonly<Record<string, string>> = {
  NetworkConfigurationStatus: "IPAM-03",
  NetworkGatewayPresence: "GW-01",
  NetworkGatewayServerStatus: "GW-01",
  NetworkGatewayClientStatus: "GW-01",
  NetworkConnectionStatus: "TUN-01",
  OffloadingVirtualNodeStatus: "REF-02",
  OffloadingNodeStatus: "REF-02",
};

function peerId(ctx: CheckContext): string {
  return ctx.peer?.clusterId ?? "unknown";
}

function tenantNs(ctx: CheckContext): string {
  return ctx.peer?.tenantNamespace ?? `liqo-tenant-${peerId(ctx)}`;
}

function liqoNs(ctx: CheckContext): string {
  return ctx.cluster.liqoNamespace ?? liqoNamespaceOf(ctx.cluster.inv) ?? "liqo";
}

/** "Type=Status (Reason) for 12m" for one condition. */
// deno-lint-ignore no-explicit-any
function describeCondition(c: any, now: Date): string {
  const since = ageMs(now, c?.lastTransitionTime);
  return `${c?.type ?? "?"}=${c?.status ?? "?"}${c?.reason ? ` (${c.reason})` : ""} for ${formatAge(since)}`;
}

// ---------------------------------------------------------------------------------------------
// FC-01

interface ModuleFinding {
  module: string;
  // deno-lint-ignore no-explicit-any
  condition: any;
}

function authRemediation(ctx: CheckContext, type: string): string {
  const ns = tenantNs(ctx), id = peerId(ctx), lns = liqoNs(ctx);
  if (type === "AuthTenantStatus") {
    return [
      `kubectl -n ${ns} get tenant -l ${REMOTE_ID_LABEL}=${id} -o yaml   # needs status.tenantNamespace and status.authParams`,
      `kubectl -n ${lns} logs deploy/liqo-controller-manager | grep -i tenant`,
      `From the consumer ${id}: liqoctl peer --remote-kubeconfig <this cluster's kubeconfig> (re-sends keys, CSR and signature)`,
    ].join("\n");
  }
  return [
    `kubectl -n ${ns} get identities -l ${REMOTE_ID_LABEL}=${id} -o wide   # needs status.kubeconfigSecretRef`,
    `kubectl -n ${lns} logs deploy/liqo-controller-manager | grep -i identity`,
    `Re-run the authentication: liqoctl peer --remote-kubeconfig <${id} kubeconfig>`,
  ].join("\n");
}

function runFc01(ctx: CheckContext): Outcome {
  const fc = ctx.peer?.foreignCluster;
  const now = ctx.cluster.now;
  const modules = fc?.status?.modules;
  if (!modules || typeof modules !== "object") {
    return {
      status: "unknown",
      summary: "ForeignCluster has no module status yet (is the controller-manager reconciling it?)",
      evidence: [`ForeignCluster ${fc?.metadata?.name ?? peerId(ctx)}: status.modules absent`],
    };
  }
  const peeringAge = ageMs(now, fc.metadata?.creationTimestamp);
  const evidence = [`peering age ${formatAge(peeringAge)}, role ${fc.status?.role ?? "Unknown"}`];
  const authBad: ModuleFinding[] = [];
  const otherBad: ModuleFinding[] = [];
  for (const module of ["authentication", "networking", "offloading"]) {
    const m = modules[module];
    if (!m?.enabled) {
      evidence.push(`${module}: disabled`);
      continue;
    }
    // deno-lint-ignore no-explicit-any
    const conds: any[] = Array.isArray(m.conditions) ? m.conditions : [];
    if (conds.length === 0) evidence.push(`${module}: enabled, no conditions yet`);
    for (const c of conds) {
      evidence.push(`${module}: ${describeCondition(c, now)}`);
      if (HEALTHY.has(c?.status)) continue;
      (module === "authentication" ? authBad : otherBad).push({ module, condition: c });
    }
  }
  if (authBad.length > 0) {
    const c = authBad[0].condition;
    return {
      status: "fail",
      summary: `authentication module unhealthy: ${describeCondition(c, now)}${
        c?.message ? `: ${c.message}` : ""
      }`,
      evidence,
      remediation: [...new Set(authBad.map((f) => authRemediation(ctx, f.condition?.type)))].join("\n"),
    };
  }
  if (otherBad.length > 0) {
    const pointers = otherBad.map((f) =>
      `${describeCondition(f.condition, now)} → see ${
        POINTERS[f.condition?.type] ?? "the " + f.module + " checks"
      }`
    );
    return {
      status: "warn",
      summary: pointers.join("; "),
      evidence,
      remediation: "These conditions summarise later layers; the named checks examine the objects directly " +
        `and give the diagnosis.\nliqoctl info peer ${peerId(ctx)}`,
    };
  }
  return {
    status: "pass",
    summary: "all enabled ForeignCluster modules healthy",
    evidence,
  };
}

// ---------------------------------------------------------------------------------------------
// API-01

function controlPlaneIdentity(inv: Inventory, id: string): K8sObject | undefined {
  return (inv.tryItems("identities") ?? []).find((i) =>
    i.metadata.labels?.[REMOTE_ID_LABEL] === id && i.spec?.type === "ControlPlane"
  );
}

async function runApi01(ctx: CheckContext): Promise<Outcome> {
  const fc = ctx.peer?.foreignCluster;
  const id = peerId(ctx);
  const identity = controlPlaneIdentity(ctx.cluster.inv, id);
  const url: string | undefined = fc?.status?.apiServerUrl || identity?.spec?.authParams?.apiServer ||
    undefined;
  const proxyUrl: string | undefined = fc?.status?.foreignProxyUrl || identity?.spec?.authParams?.proxyURL ||
    undefined;
  if (!url && !proxyUrl) {
    return {
      status: "skip",
      summary: "the local cluster does not consume this peer's API (no apiServerUrl)",
    };
  }
  const evidence: string[] = [];
  if (url) evidence.push(`apiServerUrl ${url}`);
  if (proxyUrl) evidence.push(`foreignProxyUrl ${proxyUrl} (in-band)`);
  const idUrl = identity?.spec?.authParams?.apiServer;
  if (identity && idUrl && url && idUrl !== url) {
    evidence.push(
      `Identity ${identity.metadata.name} authParams.apiServer ${idUrl} differs from the ForeignCluster`,
    );
  }
  const cond = conditionOf(fc, "APIServerStatus");
  const now = ctx.cluster.now;
  if (cond) {
    evidence.push(
      `${describeCondition(cond, now)}${cond.message ? `: ${cond.message}` : ""}`,
    );
  } else evidence.push("no APIServerStatus condition on the ForeignCluster");
  const here = await dialFromHere(ctx, url, proxyUrl);
  evidence.push(here.line);
  const target = proxyUrl ?? url;
  if (cond?.status === "Error") {
    return {
      status: "fail",
      summary: here.ok === true
        ? `provider API server ${target} reachable from here but not from the cluster (APIServerStatus=Error)`
        : `provider API server ${target} not reachable from the cluster (APIServerStatus=Error)`,
      evidence,
      remediation: api01Remediation(ctx, target!, !!proxyUrl),
    };
  }
  if (cond?.status === "Established") {
    return {
      status: "pass",
      summary: here.ok === false
        ? "reachable from the cluster but not from here (that's fine for the peering; your host has no route)"
        : `provider API server ${target} reachable from the cluster`,
      evidence,
    };
  }
  return {
    status: "unknown",
    summary: cond
      ? `APIServerStatus=${cond.status}: the controller-manager has not confirmed the API server yet`
      : "no APIServerStatus condition yet (the controller-manager probes /livez every 15 s)",
    evidence,
  };
}

async function dialFromHere(
  ctx: CheckContext,
  url: string | undefined,
  proxyUrl: string | undefined,
): Promise<{ ok: boolean | null; line: string }> {
  if (proxyUrl) {
    return {
      ok: null,
      line: "not dialled from here: in-band peering (API reached through liqo-proxy in the tunnel)",
    };
  }
  if (!url) return { ok: null, line: "not dialled from here: no URL" };
  if (!ctx.options.networkProbes) return { ok: null, line: "not dialled from here: network probes disabled" };
  if (ctx.cluster.isSnapshot) return { ok: null, line: "not dialled from here: snapshot" };
  const r = await ctx.probes.tls(url);
  if (r.outcome === "ok") return { ok: true, line: `from here: TLS handshake with ${url} in ${r.ms} ms` };
  if (r.outcome === "failed") return { ok: false, line: `from here: ${url} not reachable: ${r.detail}` };
  return { ok: null, line: `not dialled from here: ${r.detail}` };
}

function api01Remediation(ctx: CheckContext, target: string, inBand: boolean): string {
  const lns = liqoNs(ctx);
  const lines = [
    `kubectl -n ${lns} logs deploy/liqo-controller-manager | grep -i "api server"`,
    `Test from inside the cluster: kubectl -n ${lns} run ff-curl --rm -it --restart=Never --image=curlimages/curl -- curl -skm5 ${target}/livez`,
  ];
  if (inBand) {
    lines.push(
      "In-band path: check API-02 (liqo-proxy on the provider, the remapped proxy IP) and the tunnel (TUN-01)",
    );
  } else {
    lines.push(
      "Open egress from the nodes to the provider API server (TCP, the port in the URL); if the provider's " +
        "API server cannot be exposed, peer in-band: liqoctl peer --remote-kubeconfig <provider> --in-band",
      "If the address is wrong, set it on the provider (Helm apiServer.address / liqoctl install " +
        "--api-server-url) and re-peer",
    );
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// API-02

function proxyDeployment(inv: Inventory): K8sObject | undefined {
  const ns = liqoNamespaceOf(inv);
  const deps = (inv.tryItems("deployments") ?? []).filter((d) => !ns || d.metadata.namespace === ns);
  return deps.find((d) => d.metadata.labels?.["app.kubernetes.io/name"] === "proxy") ??
    deps.find((d) => d.metadata.name === "liqo-proxy");
}

function proxyIp(inv: Inventory): K8sObject | undefined {
  const ips = inv.tryItems("ips") ?? [];
  return ips.find((i) => i.metadata.labels?.["ipam.liqo.io/ip-type"] === "api-server-proxy") ??
    ips.find((i) => i.metadata.name === "api-server-proxy");
}

/** Problems with the local provider-side pieces (liqo-proxy Deployment, IP api-server-proxy). */
function providerPieces(inv: Inventory, where: string): { problems: string[]; evidence: string[] } {
  const problems: string[] = [];
  const evidence: string[] = [];
  if (!inv.tryItems("deployments")) evidence.push(`${where}: Deployments unreadable`);
  else {
    const d = proxyDeployment(inv);
    const want = d?.spec?.replicas ?? 1, ready = d?.status?.readyReplicas ?? 0;
    if (!d) problems.push(`${where}: no liqo-proxy Deployment (proxy.enabled=false?)`);
    else if (ready < want) {
      problems.push(`${where}: ${d.metadata.namespace}/${d.metadata.name} ${ready}/${want} ready`);
    } else evidence.push(`${where}: ${d.metadata.namespace}/${d.metadata.name} ${ready}/${want} ready`);
  }
  if (inv.state("ips").state === "missing") {
    problems.push(`${where}: ips.ipam.liqo.io not served (ipam.liqo.io CRDs missing, see ENV-03)`);
  } else if (!inv.tryItems("ips")) evidence.push(`${where}: IPs unreadable`);
  else {
    const ip = proxyIp(inv);
    if (!ip) problems.push(`${where}: no IP labelled ipam.liqo.io/ip-type=api-server-proxy`);
    else if (!ip.status?.ip) {
      problems.push(`${where}: IP ${ip.metadata.namespace}/${ip.metadata.name} has no status.ip`);
    } else {evidence.push(
        `${where}: IP ${ip.metadata.namespace}/${ip.metadata.name} status.ip ${ip.status.ip}`,
      );}
  }
  return { problems, evidence };
}

function runApi02(ctx: CheckContext): Outcome {
  const fc = ctx.peer?.foreignCluster;
  const id = peerId(ctx);
  const proxyUrl: string | undefined = fc?.status?.foreignProxyUrl || undefined;
  const tenant = (ctx.cluster.inv.tryItems("tenants") ?? []).find((t) =>
    t.metadata.labels?.[REMOTE_ID_LABEL] === id && t.spec?.proxyURL
  );
  if (!proxyUrl && !tenant) {
    return { status: "skip", summary: "out-of-band peering (no foreignProxyUrl)" };
  }
  if (!proxyUrl) return api02Provider(ctx, tenant!);
  return api02Consumer(ctx, proxyUrl);
}

function api02Provider(ctx: CheckContext, tenant: K8sObject): Outcome {
  const { problems, evidence } = providerPieces(ctx.cluster.inv, ctx.cluster.name);
  evidence.unshift(
    `Tenant ${tenant.metadata.namespace}/${tenant.metadata.name} spec.proxyURL ${tenant.spec.proxyURL}`,
  );
  const lns = liqoNs(ctx);
  if (problems.length) {
    return {
      status: "fail",
      summary: `in-band API path broken on the provider: ${problems.join("; ")}`,
      evidence: [...problems, ...evidence],
      remediation:
        `kubectl -n ${lns} describe deploy liqo-proxy\nkubectl -n ${lns} get ip api-server-proxy -o yaml\n` +
        `kubectl -n ${lns} logs deploy/liqo-ipam`,
    };
  }
  return { status: "pass", summary: "provider side of the in-band API path ready", evidence };
}

function api02Consumer(ctx: CheckContext, proxyUrl: string): Outcome {
  const id = peerId(ctx);
  const evidence = [`foreignProxyUrl ${proxyUrl}`];
  const cond = conditionOf(ctx.peer?.foreignCluster, "APIServerStatus");
  if (cond) {
    evidence.push(`${describeCondition(cond, ctx.cluster.now)}${cond.message ? `: ${cond.message}` : ""}`);
  }
  const problems: string[] = [];
  let expectedUrl: string | null = null;
  let host = "", port = "";
  try {
    const u = new URL(proxyUrl);
    host = u.hostname;
    port = u.port || (u.protocol === "https:" ? "443" : "80");
  } catch {
    return { status: "fail", summary: `foreignProxyUrl ${proxyUrl} is not a URL`, evidence };
  }
  if (port !== "8118") problems.push(`port ${port}, liqo-proxy listens on 8118`);
  const cfgs = ctx.cluster.inv.tryItems("configurations");
  if (!cfgs) return { status: "unknown", summary: "Configurations unreadable", evidence };
  const cfg = cfgs.find((c) => c.metadata.labels?.[REMOTE_ID_LABEL] === id);
  const specExt: string[] = cfg?.spec?.remote?.cidr?.external ?? [];
  const statusExt: string[] = cfg?.status?.remote?.cidr?.external ?? [];
  if (!cfg) {
    problems.push(`no Configuration labelled ${REMOTE_ID_LABEL}=${id} (in-band needs the networking module)`);
  } else if (statusExt.length === 0) {
    problems.push(`Configuration ${cfg.metadata.name} has no status.remote.cidr.external`);
  } else {
    evidence.push(
      `Configuration ${cfg.metadata.name}: remote external ${specExt.join(",")} → remapped ${
        statusExt.join(",")
      }`,
    );
    if (!statusExt.some((c) => contains(c, host))) {
      problems.push(`host ${host} is not inside the remapped external CIDR ${statusExt.join(",")}`);
    }
  }
  if (ctx.remote && ctx.remotePeer) {
    const remote = providerPieces(ctx.remote.inv, ctx.remote.name);
    problems.push(...remote.problems);
    evidence.push(...remote.evidence);
    const rip: string | undefined = proxyIp(ctx.remote.inv)?.status?.ip;
    if (rip && cfg) {
      const expected = specExt.map((s, i) => statusExt[i] ? remapAddress(rip, s, statusExt[i]) : null)
        .find((x) => x !== null) ?? null;
      if (!expected) {
        problems.push(
          `provider proxy IP ${rip} is not inside spec.remote.cidr.external ${
            specExt.join(",")
          } (stale Configuration? see IPAM-01)`,
        );
      } else if (expected !== host) {
        problems.push(`host ${host} ≠ provider proxy IP ${rip} remapped = ${expected}`);
        expectedUrl = `http://${expected}:8118`;
      } else evidence.push(`provider proxy IP ${rip} remapped = ${expected} = URL host`);
    }
  }
  if (problems.length) {
    return {
      status: "fail",
      summary: `in-band API path wrong: ${problems[0]}`,
      evidence: [...problems, ...evidence],
      remediation: `kubectl get foreigncluster ${id} -o jsonpath='{.status.foreignProxyUrl}'\n` +
        `kubectl -n ${tenantNs(ctx)} get configuration -l ${REMOTE_ID_LABEL}=${id} -o wide\n` +
        `On the provider: kubectl -n ${
          ctx.remote?.liqoNamespace ?? "<liqo namespace>"
        } get ip api-server-proxy; ` +
        `kubectl -n ${ctx.remote?.liqoNamespace ?? "<liqo namespace>"} get deploy liqo-proxy\n` +
        `Re-run the in-band authentication so the URL is recomputed: liqoctl peer --remote-kubeconfig <${id} kubeconfig> --in-band` +
        (expectedUrl
          ? ` (without --proxy-url, or --proxy-url ${expectedUrl}: the provider's IP translated into the remapped external CIDR)`
          : ""),
    };
  }
  return { status: "pass", summary: `in-band API path ${host}:8118 consistent`, evidence };
}

// ---------------------------------------------------------------------------------------------
// API-03

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

function runApi03(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const id = peerId(ctx);
  const now = ctx.cluster.now;
  const byPeer = (kind: "identities" | "tenants" | "resourceslices"): K8sObject[] | null =>
    inv.tryItems(kind)?.filter((o) => o.metadata.labels?.[REMOTE_ID_LABEL] === id) ?? null;
  const identities = byPeer("identities"), tenants = byPeer("tenants"), slices = byPeer("resourceslices");
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
    // deno-lint-ignore no-explicit-any
    for (const c of (s.status?.conditions ?? []) as any[]) {
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

function api03Remediation(ctx: CheckContext, fails: string[], certs: boolean): string {
  const id = peerId(ctx), ns = tenantNs(ctx), lns = liqoNs(ctx);
  const lines: string[] = [];
  if (fails.some((f) => f.includes("tenantCondition"))) {
    lines.push(
      `liqoctl uncordon tenant ${id}   # or: kubectl -n ${ns} patch tenant ${id} --type=merge -p '{"spec":{"tenantCondition":"Active"}}'`,
    );
  }
  if (fails.some((f) => f.includes("Denied"))) {
    lines.push(
      `kubectl -n ${ns} get resourceslices -l ${REMOTE_ID_LABEL}=${id} -o yaml   # read the Denied reason/message`,
      "On the provider: check the Tenant condition and the available resources, then liqoctl uncordon resourceslice <name> if cordoned",
    );
  }
  if (certs) {
    lines.push(
      `kubectl -n ${ns} get identities -l ${REMOTE_ID_LABEL}=${id} -o jsonpath='{.items[*].spec.authParams.signedCRT}' | base64 -d | openssl x509 -noout -subject -enddate`,
      `Certificates are renewed through Renew objects replicated by liqo-crd-replicator: kubectl get renews -A; kubectl -n ${lns} logs deploy/liqo-crd-replicator`,
      `If renewal is stuck, re-authenticate from the consumer: liqoctl peer --remote-kubeconfig <provider kubeconfig>`,
    );
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// catalog

/** CONTROL PLANE layer checks, in diagnosis order. */
export const CONTROLPLANE_CHECKS: readonly CheckDef[] = [
  {
    id: "FC-01",
    title: "ForeignCluster module conditions",
    layer: "controlplane",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: ["foreignclusters"],
    explain: {
      reads:
        "ForeignCluster status.modules.{authentication,networking,offloading}: enabled, each condition " +
        "with status, reason and lastTransitionTime, compared with the ForeignCluster's age.",
      decides:
        "fail when an authentication condition is not Ready/Established (this layer's business); warn " +
        "when a networking or offloading condition is unhealthy, naming the check that judges the underlying " +
        "objects (e.g. NetworkConnectionStatus → TUN-01); unknown without module status; pass otherwise.",
      fixes:
        "For authentication: inspect the Identity (consumer) or Tenant (provider) and re-run liqoctl peer. " +
        "For the others: follow the named check.",
    },
    run: runFc01,
  },
  {
    id: "API-01",
    title: "Provider API server reachable",
    layer: "controlplane",
    // In-band peerings reach the provider API through liqo-proxy: a broken in-band path (API-02) is
    // why APIServerStatus is Error. Out-of-band, API-02 skips without blocking.
    needs: ["API-02"],
    scope: "single",
    perPeer: true,
    reads: ["foreignclusters"],
    optionalReads: ["identities"],
    explain: {
      reads: "ForeignCluster status.apiServerUrl/foreignProxyUrl, the control-plane Identity's " +
        "authParams.apiServer/proxyURL, the APIServerStatus condition (the controller-manager GETs /livez every " +
        "15 s), and with network probes a TCP+TLS dial from the tool's host ('from here').",
      decides: "skip when the local cluster does not consume this peer's API, or when API-02 found the " +
        "in-band path broken (that is the cause); fail when APIServerStatus is " +
        "Error (saying whether it is reachable from here); pass when Established, even if unreachable from " +
        "here (the host may simply have no route); unknown while the condition is missing or pending.",
      fixes:
        "Open the path from the consumer's nodes to the provider API server, fix the advertised address, " +
        "or peer in-band (liqoctl peer --in-band).",
    },
    run: runApi01,
  },
  {
    id: "API-02",
    title: "In-band API path",
    layer: "controlplane",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: ["foreignclusters"],
    optionalReads: ["configurations", "ips", "deployments", "tenants"],
    explain: {
      reads: "ForeignCluster status.foreignProxyUrl (consumer) or Tenant spec.proxyURL (provider); the " +
        "provider's liqo-proxy Deployment and IP api-server-proxy (label ipam.liqo.io/ip-type); the consumer's " +
        "Configuration spec/status.remote.cidr.external.",
      decides:
        "skip for out-of-band peerings; on the consumer fail when the URL port is not 8118, its host is " +
        "not inside the remapped external CIDR, or (dual mode) not equal to the provider proxy IP translated " +
        "with the Configuration; on the provider fail when liqo-proxy is not ready or the IP has no status.ip.",
      fixes:
        "Make liqo-proxy ready and the IP allocated on the provider, then re-run liqoctl peer --in-band " +
        "so the URL is recomputed.",
    },
    run: runApi02,
  },
  {
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
    run: runApi03,
  },
];
