/**
 * The manual test cheat sheet uses the scenario's real names, addresses and remapped IPs: asserted
 * on the consumer (rome) and the provider (milan) side of the healthy peering, in the JSON report
 * and in the pasteable text (-v) and Markdown forms. The remote pod addresses are cross-checked
 * against the objects the fake API server serves.
 */
import assert from "node:assert/strict";
import { buildClusterConfig, loadScenario } from "../../fakekube/mod.ts";
import { runScenario } from "./harness.ts";
import { runScenarioCommand } from "./scenario_cli.ts";
import type { CheatSheetEntry } from "../../report/model.ts";
import type { Loose } from "../support/fixtures.ts";

interface Want {
  scenario: string;
  cluster: string;
  peer: string;
  wgShow: string;
  podCidr: string;
  remotePodIp: string;
  /** Where the remote pod address comes from in the served objects. */
  source: (objects: Loose[]) => string[];
  endpoint: string;
  /** The largest don't-fragment ping payload through the tunnel. */
  mtuPayload: string;
  /** The kubeconfig context of the cluster. */
  context: string;
}

const CASES: Want[] = [
  {
    scenario: "healthy-consumer",
    cluster: "rome-4b2a9e",
    peer: "milan-8d1f03",
    wgShow:
      "kubectl --context rome -n liqo-tenant-milan-8d1f03 exec deploy/gw-milan-8d1f03 -c wireguard -- wg show",
    podCidr: "10.244.0.0/16 → 10.71.0.0/16",
    remotePodIp: "10.71.1.45",
    // Consumer: an offloaded pod on the virtual node milan-8d1f03 reports the remapped remote IP.
    source: (objects) =>
      objects.filter((o) =>
        o.kind === "Pod" && o.spec?.nodeName === "milan-8d1f03" && o.status?.phase === "Running"
      ).map((o) => String(o.status?.podIP)),
    endpoint: "203.0.113.50:51840/UDP",
    mtuPayload: "1312",
    context: "rome",
  },
  {
    scenario: "healthy-provider",
    cluster: "milan-8d1f03",
    peer: "rome-4b2a9e",
    wgShow:
      "kubectl --context milan -n liqo-tenant-rome-4b2a9e exec deploy/gw-rome-4b2a9e -c wireguard -- wg show",
    podCidr: "10.244.0.0/16 → 10.68.0.0/16",
    remotePodIp: "10.68.2.23",
    // Provider: the reflected EndpointSlice carries the consumer's pod, in the provider's view.
    source: (objects) =>
      objects.filter((o) =>
        o.kind === "EndpointSlice" && o.metadata.labels?.["liqo.io/managed-by"] === "shadowendpointslice"
      ).flatMap((o) => ((o.endpoints ?? []) as { addresses?: string[] }[]).flatMap((e) => e.addresses ?? [])),
    endpoint: "203.0.113.50:51840/UDP",
    mtuPayload: "1312",
    context: "milan",
  },
];

/** The CLI runs name a temporary kubeconfig, which the commands carry: compare without it. */
function withoutKubeconfig(s: string): string {
  return s.replace(/ --kubeconfig \S+/g, "");
}

function commands(sheet: CheatSheetEntry[]): string[] {
  return sheet.flatMap((e) => (e.command ? [withoutKubeconfig(e.command)] : []));
}

for (const w of CASES) {
  Deno.test({
    name: `cheat sheet of ${w.scenario} uses the real names, addresses and remapped IPs`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const s = await loadScenario(w.scenario);
      const served = await buildClusterConfig(s, s.run.local);
      assert.ok(
        w.source(served.objects).includes(w.remotePodIp),
        `${w.remotePodIp} is a real remote pod address in the scenario's objects`,
      );

      const [run, verbose, md] = await Promise.all([
        runScenario(w.scenario),
        runScenarioCommand(w.scenario, "check", { args: ["-o", "text", "-v"], tls: false }),
        runScenarioCommand(w.scenario, "check", { args: ["-o", "markdown"], tls: false }),
      ]);
      assert.ok(run.report, run.stderr);
      const sheet: CheatSheetEntry[] = run.report.cheatSheet;
      const ours = sheet.filter((e) => e.cluster === w.cluster && e.peer === w.peer);
      const cmds = commands(ours);
      const ctx = JSON.stringify(ours, null, 2);

      assert.ok(
        cmds.includes(w.wgShow),
        `wg show command with the real context, namespace, deployment\n${ctx}`,
      );
      const cidr = ours.find((e) => e.title.startsWith("peer pod CIDR"));
      assert.equal(cidr?.value, w.podCidr, `remapped pod CIDR\n${ctx}`);
      const pod = ours.find((e) => e.title.startsWith("a real remote pod"));
      assert.equal(pod?.value, w.remotePodIp, `remote pod by its remapped address\n${ctx}`);
      // Data-path tests are `flyingfish probe` runs on this cluster and peer (a ping pod needs NET_RAW,
      // which Pod Security restricted refuses; the probes create admissible pods with pinned images).
      const probe = (name: string) => `flyingfish probe ${name} --context ${w.context} --peer ${w.peer}`;
      assert.ok(withoutKubeconfig(pod?.command ?? "").startsWith(probe("matrix")), pod?.command ?? "");
      const mtu = ours.find((e) => e.title.startsWith("tunnel MTU"));
      assert.equal(mtu?.value, w.mtuPayload, `largest unfragmented payload\n${ctx}`);
      assert.ok(withoutKubeconfig(mtu?.command ?? "").startsWith(probe("mtu")), `MTU probe\n${ctx}`);
      const ep = ours.find((e) => e.title.startsWith("gateway endpoint"));
      assert.equal(ep?.value, w.endpoint, `gateway endpoint\n${ctx}`);
      for (const c of cmds) assert.doesNotMatch(c, /<[^>]+>/, `no placeholder left in: ${c}`);

      // The same commands, verbatim, in the pasteable outputs.
      assert.ok(withoutKubeconfig(verbose.stdout).includes(`$ ${w.wgShow}`), "text -v shows the command");
      assert.ok(
        withoutKubeconfig(md.stdout).includes(`  ${w.wgShow}\n`),
        "Markdown has the command in a code block",
      );
      assert.ok(md.stdout.includes(w.podCidr), "Markdown has the remapped CIDR");
    },
  });
}
