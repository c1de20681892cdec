/**
 * The knobs of a fake cluster's lifecycle (scenario.yaml `clusters.<name>.lifecycle`), apart from
 * the controller that applies them (lifecycle.ts), so the write path can read them without
 * importing the controller.
 */
import { z } from "zod";

/** Schema of `clusters.<name>.lifecycle` in an active scenario (every field optional). */
export const LifecycleSchema: z.ZodType<Lifecycle, LifecycleInput> = z.strictObject({
  /**
   * Permission table: "verb resource[/sub]" entries the user may NOT do (e.g. "create pods",
   * "create pods/exec", "delete namespaces", "create namespaceoffloadings.offloading.liqo.io").
   * Honoured by SelfSubjectAccessReviews, writes, reads and exec alike. "*" as verb denies all verbs.
   */
  deny: z.array(z.string().regex(/^\S+ \S+$/, 'a "verb resource[/subresource]" pair')).default([]),
  /**
   * Validating admission webhooks that deny creates (dry runs included) of a resource (plural, or
   * plural.group), with the API server's message: `admission webhook "<webhook>" denied the request: <message>`.
   */
  admissionDeny: z.array(z.strictObject({
    resource: z.string().min(1),
    webhook: z.string().min(1),
    message: z.string().min(1),
  })).default([]),
  /** Pod Security level enforced in namespaces without a `pod-security.kubernetes.io/enforce` label. */
  podSecurity: z.enum(["privileged", "baseline", "restricted"]).default("privileged"),
  /** Image references containing any of these strings fail to pull (ErrImagePull, then ImagePullBackOff). */
  imagePullFailures: z.array(z.string().min(1)).default([]),
  /** A deleted namespace stays Terminating forever (with the conditions a real stuck namespace shows). */
  namespaceStuck: z.boolean().default(false),
  /** Nodes that take no new pod (the scheduler reports "Too many pods" for them). */
  unschedulable: z.array(z.string()).default([]),
  /** From a pod's creation to its binding by the scheduler. */
  scheduleDelayMs: z.number().int().nonnegative().default(50),
  /** From the binding to the containers running (or the image pull failing). */
  startDelayMs: z.number().int().nonnegative().default(50),
  /** From ErrImagePull to ImagePullBackOff. */
  backOffDelayMs: z.number().int().nonnegative().default(200),
  /** From a namespace DELETE to the namespace and its content being gone. */
  namespaceDeleteDelayMs: z.number().int().nonnegative().default(300),
  /** From a NamespaceOffloading's creation to `status.offloadingPhase: Ready`. */
  offloadingReadyDelayMs: z.number().int().nonnegative().default(100),
  /** Service ClusterIPs are allocated from here (default: the Liqo `service-cidr` Network, else 10.96.0.0/12). */
  serviceCIDR: z.string().optional(),
  /**
   * The LoadBalancer controller (a cloud's, MetalLB): `assign` gives each LoadBalancer Service the next
   * address of `pool` after `delayMs`; `pending` never does (no controller, or one that refuses UDP:
   * `<pending>` forever); `dropsUdp` assigns one whose UDP traffic is dropped (a cloud LB that
   * forwards only TCP). NodePorts are allocated in any case (30000–32767).
   */
  loadBalancer: z.strictObject({
    mode: z.enum(["assign", "pending", "dropsUdp"]).default("assign"),
    pool: z.array(z.string()).default(["198.51.100.10", "198.51.100.11", "198.51.100.12"]),
    delayMs: z.number().int().nonnegative().default(100),
  }).default({ mode: "assign", pool: ["198.51.100.10", "198.51.100.11", "198.51.100.12"], delayMs: 100 }),
  /**
   * A ResourceQuota every namespace created at runtime gets (a policy controller's): at most `pods`
   * pods; the next create is refused `exceeded quota`, as the quota admission plugin does.
   */
  quota: z.strictObject({ pods: z.number().int().nonnegative() }).optional(),
});

/** The lifecycle knobs of one fake cluster, defaults applied (fields as {@link LifecycleSchema} documents). */
export interface Lifecycle {
  deny: string[];
  admissionDeny: { resource: string; webhook: string; message: string }[];
  podSecurity: "privileged" | "baseline" | "restricted";
  imagePullFailures: string[];
  namespaceStuck: boolean;
  unschedulable: string[];
  scheduleDelayMs: number;
  startDelayMs: number;
  backOffDelayMs: number;
  namespaceDeleteDelayMs: number;
  offloadingReadyDelayMs: number;
  serviceCIDR?: string;
  loadBalancer: { mode: "assign" | "pending" | "dropsUdp"; pool: string[]; delayMs: number };
  quota?: { pods: number };
}

/** The lifecycle knobs as written (every field optional). */
export type LifecycleInput = Partial<Omit<Lifecycle, "loadBalancer">> & {
  loadBalancer?: Partial<Lifecycle["loadBalancer"]>;
};

/** Lifecycle defaults (what a cluster without a `lifecycle:` section gets). */
export function lifecycleDefaults(input?: LifecycleInput): Lifecycle {
  return LifecycleSchema.parse(input ?? {});
}
