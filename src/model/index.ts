// The one statement of the spec: schemas, cross-field rules, defaults, validation.
export * from "./enums.js";
export * from "./paths.js";
export * from "./resource-spec.js";
export * from "./responses.js";
export * from "./rules.js";
export * from "./schemas.js";
export * from "./validate.js";
