import assert from "node:assert/strict";
import {
  createIpPseudonymizer,
  findProviderSecrets,
  isWireguardKey,
  redactArgs,
  REDACTED,
  redactObject,
  redactWgDump,
  scrubKnown,
  scrubSecrets,
  scrubText,
  type Tally,
} from "./redact.ts";
import type { K8sObject } from "../kube/source.ts";
import { type Loose, loose } from "../tests/support/fixtures.ts";

const KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);
const PRIV = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";
const PSK = "FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=";
const PUB = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";

function ip(s: string): number {
  return s.split(".").reduce((n, o) => n * 256 + Number(o), 0) >>> 0;
}

Deno.test("redactObject: secrets keep only publicKey; managedFields and last-applied go", () => {
  const secret: Loose = {
    kind: "Secret",
    metadata: {
      name: "s",
      managedFields: [{ manager: "x" }],
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": `{"data":{"privateKey":"${PRIV}"}}`,
      },
    },
    data: { privateKey: btoa(PRIV), publicKey: btoa(PUB), kubeconfig: "dG9rZW4=" },
    stringData: { token: "abc" },
  };
  const r = redactObject(secret);
  assert.deepEqual(r.data, { publicKey: btoa(PUB) });
  assert.equal(r.stringData, undefined);
  assert.equal(r.metadata.managedFields, undefined);
  assert.equal(r.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"], undefined);
  assert.ok(!JSON.stringify(r).includes(PRIV));
  // the input is not mutated
  assert.ok(secret.data.privateKey);
});

Deno.test("redactObject: sensitive env values in pod specs and templates", () => {
  const dep: K8sObject = {
    kind: "Deployment",
    metadata: { name: "d" },
    spec: {
      template: {
        spec: {
          containers: [{
            name: "c",
            env: [{ name: "API_TOKEN", value: "s3cr3t-value" }, { name: "MTU", value: "1340" }, {
              name: "DB_PASSWORD",
              valueFrom: { secretKeyRef: { name: "x", key: "y" } },
            }],
          }],
        },
      },
    },
  };
  const r = loose(redactObject(dep));
  const env = r.spec.template.spec.containers[0].env;
  assert.equal(env[0].value, REDACTED);
  assert.equal(env[1].value, "1340");
  assert.deepEqual(env[2].valueFrom, { secretKeyRef: { name: "x", key: "y" } });
});

Deno.test("redactWgDump: private and preshared keys go, the rest stays parseable", () => {
  const dump = [
    ["liqo-tunnel", PRIV, PUB, "51840", "off"].join("\t"),
    ["liqo-tunnel", PUB, PSK, "10.0.0.1:51820", "0.0.0.0/0", "1700000000", "10", "20", "off"].join("\t"),
    ["liqo-tunnel", PUB, "(none)", "(none)", "(none)", "0", "0", "0", "off"].join("\t"),
    "",
  ].join("\n");
  const r = redactWgDump(dump);
  assert.ok(!r.text.includes(PRIV));
  assert.ok(!r.text.includes(PSK));
  assert.ok(r.text.includes(PUB));
  assert.deepEqual(r.secrets.sort(), [PRIV, PSK].sort());
  assert.equal(r.text.split("\n")[0].split("\t")[1], REDACTED);
  assert.equal(r.text.split("\n")[2].split("\t")[2], "(none)");
  // single-interface form and space-separated form
  const single = redactWgDump(`${PRIV}\t${PUB}\t51840\toff\n`);
  assert.ok(!single.text.includes(PRIV));
  const spaced = redactWgDump(`liqo-tunnel ${PRIV} ${PUB} 51840 off\r\n`);
  assert.ok(!spaced.text.includes(PRIV));
  assert.ok(spaced.text.endsWith("\r\n"));
});

Deno.test("scrubText: tokens, passwords, bearer, JWT, PEM, base64 keys next to 'private'", () => {
  const jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
  const pem =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtop\nsecretline\n-----END RSA PRIVATE KEY-----";
  const log = [
    `I1130 main.go:1] Authorization: Bearer abcdefghijklmnop.qrs`,
    `token=ZZZtoken123456 user=x`,
    `{"password":"hunter2hunter2","user":"bob"}`,
    `client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t`,
    `configured private key ${PRIV} for liqo-tunnel`,
    `peer public key ${PUB} handshake ok`,
    `id token: ${jwt}`,
    pem,
    `plain line with 10.0.0.1 and mtu 1340`,
  ].join("\n");
  const out = scrubText(log);
  for (
    const s of [
      "abcdefghijklmnop",
      "ZZZtoken123456",
      "hunter2hunter2",
      "LS0tLS1CRUdJTiBQ",
      PRIV,
      jwt,
      "MIIEow",
      "secretline",
    ]
  ) {
    assert.ok(!out.includes(s), `${s} survived:\n${out}`);
  }
  assert.ok(out.includes(PUB), "public keys on lines without 'private' stay");
  assert.ok(out.includes("plain line with 10.0.0.1 and mtu 1340"));
  assert.ok(out.includes(`"user":"bob"`));
});

Deno.test("scrubKnown: every occurrence of known values, short values ignored", () => {
  assert.equal(scrubKnown("a LONGSECRET b LONGSECRET", ["LONGSECRET", "ab"]), `a ${REDACTED} b ${REDACTED}`);
  assert.equal(scrubKnown("ab", ["ab"]), "ab");
});

Deno.test("IP pseudonymisation: consistent, keyed, bijective on a sample", () => {
  const a = createIpPseudonymizer(KEY);
  const b = createIpPseudonymizer(KEY);
  const c = createIpPseudonymizer(new Uint8Array(32).fill(9));
  const s = "endpoint 203.0.113.50:40211, pods 10.42.0.0/16, node 172.18.0.2";
  assert.equal(a.mapString(s), b.mapString(s));
  assert.equal(a.mapString(s), a.mapString(s));
  assert.notEqual(a.mapString(s), s);
  assert.notEqual(a.mapString("203.0.113.50"), c.mapString("203.0.113.50"));
  const seen = new Map<number, number>();
  for (let i = 0; i < 1000; i++) {
    const x = Math.imul(i, 2654435761) >>> 0;
    const m = a.mapAddress(x);
    assert.ok(!seen.has(m) || seen.get(m) === x, "two inputs mapped to one output");
    seen.set(m, x);
  }
});

Deno.test("IP pseudonymisation: prefix preserving (shared n-bit prefix stays shared)", () => {
  const p = createIpPseudonymizer(KEY);
  const common = (x: number, y: number): number => Math.clz32((x ^ y) >>> 0);
  for (let i = 0; i < 600; i++) {
    const x = Math.imul(i + 1, 2246822519) >>> 0;
    const y = (x ^ (1 << (i % 32))) >>> 0;
    assert.equal(common(p.mapAddress(x), p.mapAddress(y)), common(x, y));
  }
  // CIDR a/n maps to mapped(a)/n and containment is kept
  const net = p.mapString("10.42.0.0/16");
  const [addr, bits] = net.split("/");
  assert.equal(bits, "16");
  assert.equal(ip(addr) & 0xffff, 0, "network address keeps zero host bits");
  const pod = p.mapString("10.42.7.9");
  assert.equal(ip(pod) >>> 16, ip(addr) >>> 16, "pod stays inside its mapped pod CIDR");
  assert.equal(p.mapString("10.42.7.9/32"), `${pod}/32`);
});

Deno.test("IP pseudonymisation: loopback, 0.0.0.0, broadcast untouched; classes kept", () => {
  const p = createIpPseudonymizer(KEY);
  for (
    const s of [
      "127.0.0.1",
      "127.0.0.1:6443",
      "https://127.0.0.1:35871",
      "127.9.8.7/8",
      "0.0.0.0",
      "0.0.0.0/0",
      "255.255.255.255",
    ]
  ) {
    assert.equal(p.mapString(s), s);
  }
  for (let i = 0; i < 300; i++) {
    const x = Math.imul(i + 3, 2654435761) >>> 0;
    const ten = ((10 << 24) | (x & 0xffffff)) >>> 0;
    assert.equal(p.mapAddress(ten) >>> 24, 10);
    const c192 = ((0xc0a8 << 16) | (x & 0xffff)) >>> 0;
    assert.equal(p.mapAddress(c192) >>> 16, 0xc0a8);
    const c172 = ((0xac1 << 20) | (x & 0xfffff)) >>> 0;
    assert.equal(p.mapAddress(c172) >>> 20, 0xac1);
    // a public address never becomes loopback or private 10/8
    const pub = ((203 << 24) | (x & 0xffffff)) >>> 0;
    assert.notEqual(p.mapAddress(pub) >>> 24, 127);
    assert.notEqual(p.mapAddress(pub) >>> 24, 10);
  }
});

Deno.test("IP pseudonymisation: IPv6, versions and non-addresses are left alone without crashing", () => {
  const p = createIpPseudonymizer(KEY);
  for (
    const s of [
      "fd00::1",
      "2001:db8::/32",
      "fe80::1%eth0",
      "v1.31.4",
      "1.2.3.4.5",
      "image:1.2.3",
      "999.1.1.1",
      "",
    ]
  ) {
    assert.equal(p.mapString(s), s);
  }
  const deep = p.mapDeep({ a: ["fd00::1", 3, null, true, { "10.0.0.1": "10.0.0.1/32" }] });
  assert.equal(deep.a[0], "fd00::1");
  const [k, v] = Object.entries(deep.a[4] as Record<string, string>)[0];
  assert.equal(v, `${k}/32`);
});

Deno.test("redactObject: args keep Liqo flags, env keeps the allow-list, annotations keep known keys", () => {
  const tally: Tally = {};
  const pod: Loose = {
    kind: "Pod",
    metadata: {
      name: "p",
      annotations: {
        "example.com/notes": "db password is hunter2hunter2",
        "liqo.io/managed-by-namespace-map": "rome-map",
        "networking.liqo.io/x": "single-word",
        "liqo.io/free-text": "two words",
      },
    },
    spec: {
      containers: [{
        name: "wireguard",
        command: ["/usr/bin/liqo-gateway", "--token", "tok-123456789"],
        args: [
          "--endpoint-address=203.0.113.5",
          "--mtu",
          "1340",
          "--stripe-key=sk_live_abcdef",
          "--verbose",
          "extra",
        ],
        env: [
          { name: "IP_AUTODETECTION_METHOD", value: "interface=eth0" },
          { name: "DATABASE_URL", value: "postgres://u:pw@db/x" },
          { name: "ENABLED", value: "true" },
        ],
      }],
    },
  };
  const r = loose(redactObject(pod, tally));
  const c = r.spec.containers[0];
  assert.deepEqual(c.command, ["/usr/bin/liqo-gateway", "--token", REDACTED]);
  assert.deepEqual(c.args, [
    "--endpoint-address=203.0.113.5",
    "--mtu",
    "1340",
    `--stripe-key=${REDACTED}`,
    "--verbose",
    REDACTED,
  ]);
  assert.deepEqual(c.env.map((e: Loose) => e.value), ["interface=eth0", REDACTED, "true"]);
  assert.deepEqual(r.metadata.annotations, {
    "example.com/notes": REDACTED,
    "liqo.io/managed-by-namespace-map": "rome-map",
    "networking.liqo.io/x": "single-word",
    "liqo.io/free-text": REDACTED,
  });
  assert.deepEqual(tally, { args: 3, env: 1, annotations: 2 });
});

Deno.test("redactObject: ConfigMap values redacted but those the checks read; Secret publicKey only when a WG key", () => {
  const tally: Tally = {};
  const cm = loose(
    redactObject({ kind: "ConfigMap", metadata: { name: "app" }, data: { a: "x", b: "" } }, tally),
  );
  assert.deepEqual(cm.data, { a: REDACTED, b: "" });
  const cilium = loose(
    redactObject({ kind: "ConfigMap", metadata: { name: "cilium-config" }, data: { devices: "eth0" } }),
  );
  assert.deepEqual(cilium.data, { devices: "eth0" });
  const pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBODY\n-----END EC PRIVATE KEY-----\n";
  const bad = loose(
    redactObject({ kind: "Secret", metadata: { name: "s" }, data: { publicKey: btoa(pem) } }, tally),
  );
  assert.deepEqual(bad.data, {});
  const good = loose(
    redactObject({ kind: "Secret", metadata: { name: "s" }, data: { publicKey: btoa(PUB) } }),
  );
  assert.deepEqual(good.data, { publicKey: btoa(PUB) });
  assert.equal(isWireguardKey(PUB), true);
  assert.equal(isWireguardKey(btoa(pem)), false);
  assert.deepEqual(tally, { "configmap-keys": 1, pem: 1 });
});

Deno.test("scrubSecrets: PEM of any type but public ones, base64 PEM, AWS keys, URL passwords, JWT, Bearer", () => {
  const tally: Tally = {};
  const cert = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----";
  const ssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaBODY\n-----END OPENSSH PRIVATE KEY-----";
  const text = [
    cert,
    ssh,
    `b64 ${btoa("-----BEGIN PRIVATE KEY-----\nX\n-----END PRIVATE KEY-----\n")}`,
    `b64cert ${btoa(cert)}`,
    "key AKIAZ7Q3XJ4ABCDEFGHI here",
    "dsn mysql://root:p4ssw0rd@db:3306/x",
    "Authorization: Bearer abcdefghijkl",
    "tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
  ].join("\n");
  const out = scrubSecrets(text, tally);
  assert.ok(out.includes(cert), "certificates are kept");
  assert.ok(out.includes(btoa(cert)), "base64 certificates are kept");
  for (const s of ["b3BlbnNzaBODY", "AKIAZ7Q3XJ4ABCDEFGHI", "p4ssw0rd", "abcdefghijkl", "c2lnbmF0dXJl"]) {
    assert.ok(!out.includes(s), `${s} survived:\n${out}`);
  }
  assert.ok(out.includes("mysql://root:(redacted)@db:3306/x"));
  assert.deepEqual(tally, { pem: 2, "aws-access-key": 1, "url-credentials": 1, bearer: 1, jwt: 1 });
});

Deno.test("scrubText: aws_secret_access_key= and 'password is …' in free text", () => {
  const out = scrubText("aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYzzzz db password is hunter2x");
  assert.ok(!out.includes("wJalrXUtnFEMI"), out);
  assert.ok(!out.includes("hunter2x"), out);
});

Deno.test("findProviderSecrets: secretlint's recommended rules find provider keys", async () => {
  const text = `slack xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx and nothing else 10.0.0.1`;
  const found = await findProviderSecrets(text);
  assert.deepEqual(found, ["xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"]);
  assert.deepEqual(await findProviderSecrets(`peer ${PUB} endpoint 203.0.113.5:51840`), []);
});

Deno.test("redactArgs: the shape containerArgs parses is kept", () => {
  assert.deepEqual(redactArgs(["sh", "-c", "echo $TOKEN"], true), ["sh", "-c", REDACTED]);
  assert.deepEqual(redactArgs(["--mode=server", "--name", "gw", "--x", "--y=2"], false), [
    "--mode=server",
    "--name",
    "gw",
    "--x",
    "--y=2",
  ]);
});

Deno.test("redactObject: an object nested 10 000 levels deep is refused in one clean Error naming it", () => {
  let v: unknown = "leaf";
  for (let i = 0; i < 10_000; i++) v = { v };
  const deep = { kind: "ConfigMap", metadata: { name: "deep", namespace: "liqo" }, extra: v } as K8sObject;
  assert.throws(
    () => redactObject(deep),
    (e: unknown) =>
      e instanceof Error && !(e instanceof RangeError) &&
      /^ConfigMap liqo\/deep: nested more/.test(e.message),
  );
});
