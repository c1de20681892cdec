/** Typed views of Liqo's ipam.liqo.io/v1alpha1 kinds: Network and IP (Liqo's `apis/ipam/v1alpha1/*`). */
import { z } from "zod";
import { type KubeObject, ObjectEnvelope } from "./meta.ts";

/** A Network. */
export interface Network extends KubeObject {
  spec?: { cidr?: string; preAllocated?: number; [k: string]: unknown };
  status?: { cidr?: string; [k: string]: unknown };
}
/** ipam.liqo.io Network: `spec.cidr` desired, `status.cidr` acquired (single CIDR strings). */
export const NetworkView: z.ZodType<Network> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    cidr: z.string().optional(),
    preAllocated: z.number().optional(),
  }).optional(),
  status: z.looseObject({ cidr: z.string().optional() }).optional(),
});

/** An IP. */
export interface IP extends KubeObject {
  spec?: {
    ip?: string;
    networkRef?: { kind?: string; name?: string; namespace?: string; [k: string]: unknown };
    masquerade?: boolean;
    serviceTemplate?: { [k: string]: unknown };
    [k: string]: unknown;
  };
  status?: { ip?: string; cidr?: string; [k: string]: unknown };
}
/** ipam.liqo.io IP: `status.ip` is one address (there is no `status.ips`). */
export const IPView: z.ZodType<IP> = z.looseObject({
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
