/**
 * The form of a URL that may be shown or stored: without its userinfo. A kubeconfig may carry
 * `server: https://user:password@host:6443` (the HTTP client still sends it, as Basic credentials,
 * like kubectl); every message, report and bundle names the server through {@link displayUrl}, made
 * once where a cluster's endpoint is built (kube/kubeconfig.ts, kube/snapshot.ts), so no output path
 * can print the password.
 */

/** The authority's userinfo (`user:pass@`, `user@`): everything up to its last `@`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

/** `url` without `user:password@`; otherwise unchanged, byte for byte (no normalisation). */
export function displayUrl(url: string): string {
  return url.replace(USERINFO, "$1");
}
