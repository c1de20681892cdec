import assert from "node:assert/strict";
import { setProgress, stopProgress, terminalColumns } from "./output.ts";

Deno.test("stopProgress erases the registered progress line once, then nothing", () => {
  let stops = 0;
  setProgress({ stop: () => stops++ });
  stopProgress();
  stopProgress();
  assert.equal(stops, 1);
  setProgress(null);
  stopProgress();
  assert.equal(stops, 1);
});

Deno.test("while a progress line is drawn, console.error erases it first (a tool error never lands on it)", () => {
  const order: string[] = [];
  const { error } = console;
  console.error = (...a: unknown[]) => void order.push(`error ${a.join(" ")}`);
  try {
    setProgress({ stop: () => void order.push("stop") });
    console.error("flyingfish: the run did not finish");
    console.error("again");
    assert.deepEqual(order, ["stop", "error flyingfish: the run did not finish", "error again"]);
  } finally {
    stopProgress();
    console.error = error;
  }
});

Deno.test({
  name: "terminalColumns: the terminal's width, else $COLUMNS, else 80",
  permissions: { env: ["COLUMNS"] },
  fn: () => {
    let tty = false;
    try {
      tty = Deno.consoleSize().columns > 0;
    } catch {
      // not a terminal
    }
    const before = Deno.env.get("COLUMNS");
    try {
      Deno.env.set("COLUMNS", "123");
      assert.equal(terminalColumns(), tty ? Deno.consoleSize().columns : 123);
      Deno.env.set("COLUMNS", "junk");
      assert.equal(terminalColumns(), tty ? Deno.consoleSize().columns : 80);
    } finally {
      if (before === undefined) Deno.env.delete("COLUMNS");
      else Deno.env.set("COLUMNS", before);
    }
  },
});
