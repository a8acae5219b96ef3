// Writes the JSON Schema of every wire shape to dist/json-schema/<name>.json after the build, so
// code in other languages can validate against the same contract without running TypeScript.
import { mkdirSync, writeFileSync } from 'node:fs';
import { jsonSchemas } from '../dist/index.js';

const target = new URL('../dist/json-schema/', import.meta.url);
mkdirSync(target, { recursive: true });
const schemas = jsonSchemas();
for (const [name, schema] of Object.entries(schemas)) {
  writeFileSync(new URL(`${name}.json`, target), `${JSON.stringify(schema, null, 2)}\n`);
}
console.log(`core: wrote ${Object.keys(schemas).length} JSON Schemas to dist/json-schema/`);
