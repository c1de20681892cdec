/**
 * Every Liqo custom object (API group `*.liqo.io`) in testdata/ validates against Liqo's own CRDs,
 * vendored in testdata/liqo/crds/ (see its SOURCE.txt), the way a strict API server validates it:
 * the served version's openAPIV3Schema with unknown fields as errors (unless the schema preserves
 * them), formats and enums enforced, the CRDs' CEL endpoint rules re-checked by hand, the scope
 * (namespaced or not) respected and the metadata valid. Objects of other groups get the metadata
 * checks only; files without Kubernetes objects (scenario.yaml, *.wireguard.yaml) are skipped.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, locked in tests/deno.lock (tests/support/runtime_lock.ts)
import { Ajv, type ValidateFunction } from "npm:ajv@8.20.0";
import { parse, parseAllDocuments } from "yaml";

const TESTDATA = new URL("../testdata/", import.meta.url);
const CRDS = new URL("liqo/crds/", TESTDATA);

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * A CRD schema as an Ajv schema, with the API server's strict field validation: an object with
 * `properties` admits no other field unless it says `x-kubernetes-preserve-unknown-fields`;
 * `x-kubernetes-int-or-string` is an integer or a string.
 */
function toAjv(s: Json): Json {
  if (Array.isArray(s)) return s.map(toAjv);
  if (!s || typeof s !== "object") return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith("x-kubernetes-") || k === "description" || k === "example") continue;
    if (k === "properties") {
      out.properties = Object.fromEntries(Object.entries(v as Json).map(([pk, pv]) => [pk, toAjv(pv)]));
      continue;
    }
    out[k] = toAjv(v);
  }
  if (s["x-kubernetes-int-or-string"]) {
    delete out.type;
    return { ...out, anyOf: [{ type: "integer" }, { type: "string" }] };
  }
  if (
    s.type === "object" && s.properties && s.additionalProperties === undefined &&
    !s["x-kubernetes-preserve-unknown-fields"]
  ) {
    out.additionalProperties = false;
  }
  return out;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
  ajv.addFormat("int32", {
    type: "number",
    validate: (n: number) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647,
  });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat("byte", /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat("ipv4", IPV4);
  ajv.addFormat("cidr", (s: string) => {
    const [ip, m] = s.split("/");
    return IPV4.test(ip) && /^\d+$/.test(m ?? "") && Number(m) <= 32;
  });
  return ajv;
}

interface Crd {
  scope: "Namespaced" | "Cluster";
  validate: ValidateFunction;
}

/** The served versions of the vendored CRDs by `group/version/Kind` (compiled once per process). */
let crdsPromise: Promise<Map<string, Crd>> | null = null;
function loadCrds(): Promise<Map<string, Crd>> {
  return crdsPromise ??= compileCrds();
}

async function compileCrds(): Promise<Map<string, Crd>> {
  const ajv = newAjv();
  const crds = new Map<string, Crd>();
  for await (const e of Deno.readDir(CRDS)) {
    if (!e.name.endsWith(".yaml")) continue;
    const crd = parse(await Deno.readTextFile(new URL(e.name, CRDS)));
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      crds.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, {
        scope: crd.spec.scope,
        validate: ajv.compile(toAjv(v.schema.openAPIV3Schema)),
      });
    }
  }
  return crds;
}

/** The CEL rules of the CRDs (`x-kubernetes-validations`) that apply to one object, by hand. */
function celChecks(o: Json): string[] {
  const errs: string[] = [];
  const endpoint = (ep: Json, where: string, withNodePorts = false) => {
    if (!ep) return;
    const has = (k: string) => ep[k] !== undefined;
    if (has("port") && has("ports")) errs.push(`${where}: port and ports are mutually exclusive`);
    if (!(has("port") || (has("ports") && ep.ports.length > 0))) {
      errs.push(`${where}: at least one of port or ports must be set`);
    }
    if (has("ports") && new Set(ep.ports).size !== ep.ports.length) errs.push(`${where}: duplicate ports`);
    if (withNodePorts) {
      if (has("nodePort") && has("nodePorts")) {
        errs.push(`${where}: nodePort and nodePorts are mutually exclusive`);
      }
      if (has("nodePorts") && new Set(ep.nodePorts).size !== ep.nodePorts.length) {
        errs.push(`${where}: duplicate nodePorts`);
      }
    }
  };
  if (o.kind === "GatewayServer") {
    endpoint(o.spec?.endpoint, "spec.endpoint", true);
    endpoint(o.status?.endpoint, "status.endpoint");
  }
  if (o.kind === "GatewayClient") endpoint(o.spec?.endpoint, "spec.endpoint");
  if (o.kind === "WgGatewayServer") endpoint(o.status?.endpoint, "status.endpoint");
  // The CRDs' other CEL rules are immutability rules (self == oldSelf): nothing to check on one object.
  return errs;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** What the API server checks of any object's metadata: name, label keys and values, annotations. */
function metaChecks(o: Json): string[] {
  const e: string[] = [];
  const m = o.metadata ?? {};
  if (!m.name) e.push("metadata.name missing");
  else if (m.name.length > 253 || !DNS1123_SUBDOMAIN.test(m.name)) {
    e.push(`metadata.name "${m.name}" is not a DNS-1123 subdomain`);
  }
  for (const [k, v] of Object.entries(m.labels ?? {})) {
    const [prefix, name] = k.includes("/") ? k.split("/") : [null, k];
    if ((prefix && !DNS1123_SUBDOMAIN.test(prefix)) || !LABEL_NAME.test(name) || name.length > 63) {
      e.push(`label key "${k}" invalid`);
    }
    if (typeof v !== "string" || v.length > 63 || !LABEL_VALUE.test(v)) {
      e.push(`label ${k}="${v}" invalid value`);
    }
  }
  for (const [k, v] of Object.entries(m.annotations ?? {})) {
    if (typeof v !== "string") e.push(`annotation ${k} is not a string`);
  }
  return e;
}

/** Every YAML/JSON file under testdata/ but the vendored CRDs themselves. */
async function fixtureFiles(dir: URL = TESTDATA): Promise<URL[]> {
  const out: URL[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.name.startsWith(".")) continue;
    const url = new URL(e.isDirectory ? `${e.name}/` : e.name, dir);
    if (url.href === CRDS.href) continue;
    if (e.isDirectory) out.push(...await fixtureFiles(url));
    else if (/\.(ya?ml|json)$/.test(e.name)) out.push(url);
  }
  return out.sort((a, b) => a.href.localeCompare(b.href));
}

/** The Kubernetes objects of a file (List kinds flattened; documents without apiVersion/kind left out). */
function objectsOf(url: URL, text: string): Json[] {
  const docs = url.pathname.endsWith(".json")
    ? [JSON.parse(text)]
    : parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: -1 }));
  return docs.flatMap((d: Json) =>
    d && Array.isArray(d.items) && /List$/.test(d.kind ?? "") ? d.items : d ? [d] : []
  ).filter((o: Json) => o && typeof o === "object" && o.apiVersion && o.kind);
}

/** The problems of one object, as an API server with Liqo's CRDs installed would report them. */
function problemsOf(o: Json, crds: Map<string, Crd>): string[] {
  const errs = metaChecks(o);
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
  if (!group.endsWith("liqo.io")) return errs;
  const crd = crds.get(`${group}/${version}/${o.kind}`);
  if (!crd) return [...errs, `no served CRD for ${o.apiVersion} ${o.kind}`];
  if (crd.scope === "Namespaced" && !o.metadata?.namespace) {
    errs.push("namespaced kind without metadata.namespace");
  }
  if (crd.scope === "Cluster" && o.metadata?.namespace) {
    errs.push("cluster-scoped kind with metadata.namespace");
  }
  if (!crd.validate(o)) {
    for (const er of crd.validate.errors ?? []) {
      const extra = (er.params as { additionalProperty?: string }).additionalProperty;
      errs.push(`schema: ${er.instancePath || "/"} ${er.message}${extra ? ` (${extra})` : ""}`);
    }
  }
  return [...errs, ...celChecks(o)];
}

Deno.test("testdata: every Liqo object validates against Liqo's vendored CRDs (testdata/liqo/crds)", async () => {
  const crds = await loadCrds();
  assert.ok(crds.size >= 28, `only ${crds.size} served CRD versions`);
  const problems: string[] = [];
  const kinds = new Set<string>();
  let liqoObjects = 0;
  for (const url of await fixtureFiles()) {
    for (const o of objectsOf(url, await Deno.readTextFile(url))) {
      if (String(o.apiVersion).split("/")[0].endsWith("liqo.io")) {
        liqoObjects++;
        kinds.add(o.kind);
      }
      const where = `${url.pathname.slice(TESTDATA.pathname.length)}: ${o.kind} ${
        o.metadata?.namespace ? `${o.metadata.namespace}/` : ""
      }${o.metadata?.name}`;
      for (const p of problemsOf(o, crds)) problems.push(`${where}: ${p}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(liqoObjects > 200, `only ${liqoObjects} Liqo objects found`);
  assert.ok(kinds.size >= 15, `only ${kinds.size} Liqo kinds found`);
});

Deno.test("testdata: the CRD validation catches an unknown field, a bad enum, a broken CEL rule, a wrong scope", async () => {
  const crds = await loadCrds();
  const gw = {
    apiVersion: "networking.liqo.io/v1beta1",
    kind: "GatewayServer",
    metadata: { name: "gw", namespace: "liqo-tenant-x" },
    spec: { endpoint: { port: 51840, ports: [51840], serviceType: "Elsewhere" }, bogus: true },
  };
  const found = problemsOf(gw, crds).join("\n");
  assert.match(found, /additional properties \(bogus\)/);
  assert.match(found, /must be equal to one of the allowed values/);
  assert.match(found, /port and ports are mutually exclusive/);
  const fc = {
    apiVersion: "core.liqo.io/v1beta1",
    kind: "ForeignCluster",
    metadata: { name: "x", namespace: "n" },
  };
  assert.match(problemsOf(fc, crds).join("\n"), /cluster-scoped kind with metadata.namespace/);
});
