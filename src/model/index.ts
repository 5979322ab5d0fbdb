// The one statement of the spec: schemas, cross-field rules, defaults, validation.
// For the tests: run-time code imports the modules it needs, so that responses.ts (which
// nothing at run time uses) stays out of the bundle's chunks.
export * from "./enums.js";
export * from "./issue-path.js";
export * from "./listeners.js";
export * from "./paths.js";
export * from "./resource-spec.js";
export * from "./responses.js";
export * from "./rules.js";
export * from "./schemas.js";
export * from "./validate.js";
