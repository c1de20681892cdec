import { sampleReport } from "./reporters/fixture.ts";
import { renderText } from "./reporters/text.ts";
const r = sampleReport();
console.log(renderText(r, {color: false, verbose: false, quiet: false}));
console.log(renderText(r, {color: true, verbose: true, quiet: false}));
console.log(renderText(r, {color: false, verbose: false, quiet: true}));
console.log(renderText(sampleReport({results: r.results.filter(x=>x.peer!=="rome-4b2a9e"), diagnosis: null}), {color: false, verbose: false, quiet: false}));
