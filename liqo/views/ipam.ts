/** Typed views of Liqo's ipam.liqo.io/v1alpha1 kinds: Network and IP (FACTS §2.9). */
import { z } from "zod";
import { ObjectEnvelope } from "./meta.ts";

/** ipam.liqo.io Network: `spec.cidr` desired, `status.cidr` acquired (single CIDR strings). */
export const NetworkView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    cidr: z.string().optional(),
    preAllocated: z.number().optional(),
  }).optional(),
  status: z.looseObject({ cidr: z.string().optional() }).optional(),
});
/** A Network. */
export type Network = z.infer<typeof NetworkView>;

/** ipam.liqo.io IP: `status.ip` is one address (there is no `status.ips`). */
export const IPView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    ip: z.string().optional(),
    networkRef: z.looseObject({
      kind: z.string().optional(),
      name: z.string().optional(),
      namespace: z.string().optional(),
    }).optional(),
    masquerade: z.boolean().optional(),
    serviceTemplate: z.looseObject({}).optional(),
  }).optional(),
  status: z.looseObject({
    ip: z.string().optional(),
    cidr: z.string().optional(),
  }).optional(),
});
/** An IP. */
export type IP = z.infer<typeof IPView>;
