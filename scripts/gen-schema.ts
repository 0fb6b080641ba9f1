// npm run schema: publish the valibot schemas as JSON Schema in schema/. The valibot definitions in
// src/core/model/ are the single source; tests/core/schema-files.test.ts fails when these files
// fall behind them.
import { writeFileSync } from "node:fs";
import { jsonSchemas } from "../src/core/model/json-schema.ts";

for (const [name, schema] of Object.entries(jsonSchemas())) {
  writeFileSync(new URL(`../schema/${name}.schema.json`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`schema/${name}.schema.json`);
}
