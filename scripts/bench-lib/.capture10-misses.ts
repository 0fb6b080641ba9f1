import { captureQuality } from "/work/wt-capture10/scripts/bench-lib/capture-quality.ts";
const q = captureQuality();
const sets = process.argv.slice(2);
for (const s of sets) for (const e of (q as any)[s].errors) console.log(`${s} #${e.id} [${e.class}] ${e.kind}: ${JSON.stringify(e.text.slice(0, 400))}\n    -> ${e.got}`);
