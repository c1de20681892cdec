import { sampleReport } from "./reporters/fixture.ts";
import { render } from "./reporters/render.ts";
const r = sampleReport();
for (const f of ["markdown","junit"] as const) console.log(render(r, f, {color:false,verbose:false,quiet:false}));
await Deno.writeTextFile("/tmp/ff.html", render(r, "html", {color:false,verbose:false,quiet:false}));
