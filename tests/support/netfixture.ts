/**
 * Test fixture of the fake data plane: the rome ↔ milan base examples with probe pods, served by
 * one {@link createNetworkHost} (in-process, no API server).
 */
import type { K8sObject } from "../../kube/source.ts";
import { createNetworkHost, type ExecResult, loadBase, type Network } from "../../fakekube/mod.ts";

/** The probe namespace of the fixture. */
export const NS = "flyingfish-probe-t3st0001";

/** A probe pod like C2's: agnhost netexec on one node. */
export function probePod(
  name: string,
  node: string,
  ip: string,
  labels: Record<string, string> = {},
): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS, labels: { "app.kubernetes.io/component": "probe", ...labels } },
    spec: {
      nodeName: node,
      containers: [{
        name: "probe",
        image: "agnhost",
        args: ["netexec", "--http-port=8080", "--udp-port=8081"],
      }],
    },
    status: { phase: "Running", podIP: ip },
  };
}

/** The fixture: both clusters' objects (mutable), the host and a runner. */
export interface TwoClusters {
  host: ReturnType<typeof createNetworkHost>;
  net: Network;
  rome: K8sObject[];
  milan: K8sObject[];
  run(
    cluster: "rome" | "milan",
    pod: string,
    cmd: readonly string[],
    signal?: AbortSignal,
    container?: string,
  ): Promise<ExecResult>;
}

/** rome ↔ milan from the base examples, two probe pods per cluster (same 10.244/16 pod CIDR on both). */
export async function twoClusters(model: unknown = {}): Promise<TwoClusters> {
  const rome = (await loadBase("rome")).objects;
  const milan = (await loadBase("milan")).objects;
  rome.push(
    probePod("p-rome-w1", "rome-worker-1", "10.244.1.50"),
    probePod("p-rome-w2", "rome-worker-2", "10.244.2.50"),
  );
  milan.push(
    probePod("p-milan-w1", "milan-worker-1", "10.244.1.60"),
    probePod("p-milan-w2", "milan-worker-2", "10.244.2.60"),
  );
  const host = createNetworkHost(model);
  host.attach("rome", () => rome);
  host.attach("milan", () => milan);
  const pod = (objs: K8sObject[], name: string) => objs.find((o) => o.metadata.name === name)!;
  const run = (
    cluster: "rome" | "milan",
    name: string,
    cmd: readonly string[],
    signal = new AbortController().signal,
    container = "probe",
  ) => host.exec(cluster, pod(cluster === "rome" ? rome : milan, name), container, cmd, signal)!;
  return { host, net: host.network as Network, rome, milan, run };
}
