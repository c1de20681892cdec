import { fixText } from "../../report/remediation.ts";
import { fixAsReported } from "../../tests/support/remediation_view.ts";
import assert from "node:assert/strict";
import { judgeService, REFLECTED_SLICE_MANAGER, type ServiceMeasurement } from "./judge.ts";

const NS = "flyingfish-probe-abcd1234";
const RNS = `${NS}-rome-4b2a9e`;

/** A healthy measurement: 2 local + 2 offloaded backends, both sides listed, DNS and sweeps fine. */
function healthy(): ServiceMeasurement {
  const backends = [
    { pod: "ff-probe-rome-worker-1", side: "local" as const, node: "rome-worker-1", address: "10.244.1.5" },
    { pod: "ff-probe-rome-worker-2", side: "local" as const, node: "rome-worker-2", address: "10.244.2.5" },
    { pod: "ff-probe-milan-8d1f03-0", side: "remote" as const, node: "milan-8d1f03", address: "10.71.1.7" },
    { pod: "ff-probe-milan-8d1f03-1", side: "remote" as const, node: "milan-8d1f03", address: "10.71.2.7" },
  ];
  const names = backends.map((b) => b.pod);
  const ep = (pod: string, address: string) => ({ pod, addresses: [address], ready: true });
  return {
    service: "ff-probe",
    namespace: NS,
    remoteNamespace: RNS,
    cluster: "rome-4b2a9e",
    peer: "milan-8d1f03",
    backends,
    slices: [
      {
        side: "local",
        cluster: "rome-4b2a9e",
        namespace: NS,
        service: { name: "ff-probe", clusterIP: "10.96.0.10" },
        slices: [{
          name: "ff-probe-x1",
          reflected: false,
          endpoints: backends.map((b) => ep(b.pod, b.address)),
        }],
        expected: backends.map((b) => ({ pod: b.pod, address: b.address, reflected: false })),
        error: null,
      },
      {
        side: "remote",
        cluster: "milan-8d1f03",
        namespace: RNS,
        service: { name: "ff-probe", clusterIP: "10.112.0.20" },
        slices: [
          {
            name: "ff-probe-n1",
            reflected: false,
            endpoints: [ep(names[2], "10.244.1.7"), ep(names[3], "10.244.2.7")],
          },
          {
            name: "ff-probe-x1",
            reflected: true,
            endpoints: [ep(names[0], "10.70.1.5"), ep(names[1], "10.70.2.5")],
          },
        ],
        expected: backends.map((b) => ({ pod: b.pod, address: null, reflected: b.side === "local" })),
        error: null,
      },
    ],
    dns: [
      {
        side: "local",
        fromPod: names[0],
        name: `ff-probe.${NS}.svc.cluster.local`,
        addresses: ["10.96.0.10"],
        expected: "10.96.0.10",
        error: null,
      },
      {
        side: "remote",
        fromPod: names[2],
        name: `ff-probe.${RNS}.svc.cluster.local`,
        addresses: ["10.112.0.20"],
        expected: "10.112.0.20",
        error: null,
      },
    ],
    sweeps: (["local", "remote"] as const).map((side, i) => ({
      side,
      fromPod: names[i * 2],
      target: i ? "10.112.0.20" : "10.96.0.10",
      expected: names,
      answered: Object.fromEntries(names.map((n) => [n, 2])),
      requests: 8,
      bound: 40,
      errors: 0,
      stop: "all-answered" as const,
      detail: "",
    })),
    notes: [],
  };
}

Deno.test("PROBE-SVC judge: everything listed, resolved and answering passes", () => {
  const o = judgeService(healthy());
  assert.equal(o.status, "pass", o.summary);
  assert.match(
    o.summary,
    /4 backend\(s\) listed on both sides, DNS resolves from consumer and provider, every backend answered \(8 \+ 8 requests\)/,
  );
  assert.ok(o.evidence!.some((e) => e.includes("[reflected]")));
});

Deno.test("PROBE-SVC judge: a backend that never answered is named with its node", () => {
  const m = healthy();
  delete m.sweeps[0].answered["ff-probe-milan-8d1f03-1"];
  m.sweeps[0].stop = "bound";
  m.sweeps[0].requests = 40;
  const o = judgeService(m);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /backend ff-probe-milan-8d1f03-1 \(provider, node milan-8d1f03, 10\.71\.2\.7\) never answered: 40/,
  );
  assert.match(o.summary, /from ff-probe-rome-worker-1 \(consumer\) to 10\.96\.0\.10 \(bound 40\)/);
  assert.match(
    fixText(o.remediation),
    /kubectl -n flyingfish-probe-abcd1234 describe pod ff-probe-milan-8d1f03-1/,
  );
});

Deno.test("PROBE-SVC judge: the reflected EndpointSlice missing on the provider is named", () => {
  const m = healthy();
  m.slices[1].slices = m.slices[1].slices.filter((s) => !s.reflected);
  m.slices[1].error = "still incomplete after 20 s";
  const o = judgeService(m);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    new RegExp(`reflected EndpointSlice of ff-probe \\(managed-by ${REFLECTED_SLICE_MANAGER}\\) missing`),
  );
  assert.match(o.summary, /milan-8d1f03 \(provider, namespace flyingfish-probe-abcd1234-rome-4b2a9e\)/);
  assert.match(o.summary, /ff-probe-rome-worker-1, ff-probe-rome-worker-2 not listed/);
  assert.match(
    fixAsReported(o.remediation, { cluster: "rome-4b2a9e", peer: "milan-8d1f03" }),
    /--kubeconfig <milan-8d1f03 kubeconfig> -n flyingfish-probe-abcd1234-rome-4b2a9e get shadowendpointslices/,
  );
  assert.match(fixText(o.remediation), /-n liqo-tenant-milan-8d1f03 logs deploy\/vk-milan-8d1f03/);
});

Deno.test("PROBE-SVC judge: a reflected Service missing, a backend missing or not ready, a wrong address", () => {
  let m = healthy();
  m.slices[1].service = null;
  let o = judgeService(m);
  assert.match(o.summary, /^reflected Service ff-probe missing in milan-8d1f03 \(provider/);

  m = healthy();
  m.slices[0].slices[0].endpoints.pop();
  m.slices[0].slices[0].endpoints[0].ready = false;
  m.slices[0].slices[0].endpoints[1].addresses = ["10.244.9.9"];
  o = judgeService(m);
  assert.equal(o.status, "fail");
  const all = o.evidence!.join("\n");
  assert.match(
    all,
    /EndpointSlices of ff-probe in rome-4b2a9e \(consumer, .*\) do not list backend ff-probe-milan-8d1f03-1/,
  );
  assert.match(all, /lists backend ff-probe-rome-worker-1 not ready/);
  assert.match(all, /lists backend ff-probe-rome-worker-2 at 10\.244\.9\.9, expected 10\.244\.2\.5/);
  assert.match(o.summary, /\(\+2 more\)$/);
});

Deno.test("PROBE-SVC judge: the side whose DNS fails or disagrees with its ClusterIP is named", () => {
  let m = healthy();
  m.dns[1] = { ...m.dns[1], addresses: [], error: "getent hosts not found" };
  let o = judgeService(m);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /^DNS on the provider side: ff-probe\.flyingfish-probe-abcd1234-rome-4b2a9e\.svc\.cluster\.local does not resolve from ff-probe-milan-8d1f03-0 \(provider\): getent hosts not found/,
  );
  assert.match(
    fixText(o.remediation),
    /--kubeconfig <remote kubeconfig> -n kube-system get pods -l k8s-app=kube-dns/,
  );

  m = healthy();
  m.dns[0].addresses = ["10.96.7.7"];
  o = judgeService(m);
  assert.match(
    o.summary,
    /^DNS on the consumer side: .* resolves to 10\.96\.7\.7 .* ClusterIP there is 10\.96\.0\.10/,
  );
});

Deno.test("PROBE-SVC judge: a sweep that could not run fails with the reason", () => {
  const m = healthy();
  m.sweeps[1] = {
    ...m.sweeps[1],
    stop: "exec-failed",
    detail: "pods/exec forbidden",
    answered: {},
    requests: 0,
  };
  const o = judgeService(m);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /backend sweep from ff-probe-milan-8d1f03-0 \(provider\) to 10\.112\.0\.20 did not run: pods\/exec forbidden/,
  );
});

Deno.test("PROBE-SVC judge: a sweep cut short after some requests still names the silent backends", () => {
  const m = healthy();
  m.sweeps[0] = {
    ...m.sweeps[0],
    stop: "exec-failed",
    detail: "exec timed out after 15000 ms",
    answered: { "ff-probe-rome-worker-1": 1, "ff-probe-rome-worker-2": 1, "ff-probe-milan-8d1f03-0": 1 },
    requests: 4,
  };
  const o = judgeService(m);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /^backend ff-probe-milan-8d1f03-1 .* never answered: 4 request\(s\) .* \(sweep ended: exec timed out after 15000 ms\)$/,
  );
});
