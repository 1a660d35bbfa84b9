// Builds extractor.js into a WebAssembly component of the `extractor`
// world (contract 0.2.0) with componentize-js:
//
//   npm ci && node build.mjs [OUT.wasm]
//
// OUT defaults to target/wasm32-wasip2/plugin/js_extractor.wasm at the
// workspace root, beside the Rust and Python components. The component
// gets no HTTP, no clocks, no randomness and no stdio: an extractor needs
// none of them, and the host grants none.
import { componentize } from "@bytecodealliance/componentize-js";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const out = resolve(process.argv[2] || resolve(root, "target/wasm32-wasip2/plugin/js_extractor.wasm"));
const { component } = await componentize({
  sourcePath: resolve(here, "extractor.js"),
  witPath: resolve(root, "wit/0.2.0"),
  worldName: "extractor",
  disableFeatures: ["stdio", "random", "clocks", "http", "fetch-event"],
});
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, component);
console.log(`build.mjs: ${out} (${component.length} bytes)`);
