import assert from "node:assert/strict";
import { allowedPrograms, kubeconfigPaths, pluginCommands } from "./launch.ts";

Deno.test("launch: the kubeconfig files of a run: the flags, else KUBECONFIG, else ~/.kube/config", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.deepEqual(kubeconfigPaths(["check", "--kubeconfig", "/a", "--remote-kubeconfig=/b"], env({})), [
    "/a",
    "/b",
  ]);
  assert.deepEqual(
    kubeconfigPaths(["check", "--remote-kubeconfig", "/b"], env({ KUBECONFIG: "/x::/y", HOME: "/h" })),
    ["/b", "/x", "/y"],
  );
  assert.deepEqual(kubeconfigPaths(["check"], env({ HOME: "/h" })), ["/h/.kube/config"]);
  assert.deepEqual(kubeconfigPaths(["check", "--", "--kubeconfig", "/a"], env({ HOME: "/h" })), [
    "/h/.kube/config",
  ]);
});

Deno.test("launch: the exec plugins of every user, kubectl first; unreadable or malformed files grant nothing", async () => {
  const doc = {
    users: [
      { name: "eks", user: { exec: { command: "aws", args: ["eks", "get-token"] } } },
      { name: "gke", user: { exec: { command: "gke-gcloud-auth-plugin" } } },
      { name: "tok", user: { token: "x" } },
      { name: "bad", user: { exec: { command: 7 } } },
      "junk",
    ],
  };
  assert.deepEqual(pluginCommands(doc), ["aws", "gke-gcloud-auth-plugin"]);
  assert.deepEqual(pluginCommands(null), []);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/kc`,
      "users:\n- name: a\n  user:\n    exec:\n      command: kubelogin\n- name: b\n  user:\n    exec:\n      command: kubectl\n",
    );
    await Deno.writeTextFile(`${dir}/bad`, "users: [");
    assert.deepEqual(await allowedPrograms([`${dir}/kc`, `${dir}/bad`, `${dir}/missing`]), [
      "kubectl",
      "liqoctl",
      "kubelogin",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
