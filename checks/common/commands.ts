/**
 * Building blocks of the remediation commands checks print, so every command is spelled one way
 * (and a later `--kubeconfig/--context` prefix has one place to go).
 */

/** `kubectl -n <namespace>`: the start of a command against one namespace. */
export function kubectlIn(namespace: string): string {
  return `kubectl -n ${namespace}`;
}
