// Validates Kubernetes objects against the API's OpenAPI schemas, as
// compiled by the npm package kubernetes-models (tests/deploy/k8s-schema).
// Reads a JSON array of objects on standard input (the rendered
// kustomization); prints one line per object, "ok KIND NAME" or
// "FAIL KIND NAME: what the schema says", and exits 1 if any failed.
// An apiVersion or kind the package does not know is a failure.
import { readFileSync } from "node:fs";

const objs = JSON.parse(readFileSync(0, "utf8"));
let failed = 0;
for (const obj of objs) {
  const name = `${obj.kind} ${obj.metadata && obj.metadata.name}`;
  const group = String(obj.apiVersion || "");
  let mod;
  try {
    mod = await import(`kubernetes-models/${group}/${obj.kind}`);
  } catch (e) {
    console.log(`FAIL ${name}: no schema for apiVersion ${group} kind ${obj.kind}`);
    failed++;
    continue;
  }
  const Model = mod[obj.kind] || mod.default;
  try {
    new Model(obj).validate();
    console.log(`ok ${name}`);
  } catch (e) {
    console.log(`FAIL ${name}: ${String(e.message || e).replace(/\n/g, " | ").slice(0, 1500)}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
