// `tracked_packages` (service-facts.md, "Tracked packages"): revision metadata a PATCH or a
// create may carry, `"<package-name>:<version>"` strings, the name one the service knows. The
// service validates each entry strictly; the emulator does the same with this, and
// `deploy push` checks what it detected with it before sending.
import type { FieldIssue } from "./issue-path.js";

/** The packages the service tracks (the public clients' list; the service may add more). */
export const TRACKED_PACKAGES = ["google-adk"] as const;

/** A version as detected: a resolved version, a specifier (`>=1.0,<2`) or `unknown`. */
const VERSION = /^[\w.*!=<>~^+,\- ]{1,100}$/;

/** Problems with a `tracked_packages` value, located under `["body", "tracked_packages"]`. */
export function trackedPackagesIssues(value: unknown): FieldIssue[] {
  const at = (index?: number) => ["body", "tracked_packages", ...(index === undefined ? [] : [index])];
  if (value == null) return [];
  if (!Array.isArray(value)) return [{ loc: at(), msg: "must be a list of strings", type: "list_type" }];
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  value.forEach((entry, index) => {
    const match = typeof entry === "string" ? /^([^:]+):(.*)$/.exec(entry) : null;
    const [, name = "", version = ""] = match ?? [];
    if (!match || !VERSION.test(version) || version.trim() !== version) {
      issues.push({
        loc: at(index),
        msg: `must be "<package-name>:<version>", e.g. "google-adk:1.2.3"`,
        type: "value_error",
      });
    } else if (!(TRACKED_PACKAGES as readonly string[]).includes(name)) {
      issues.push({
        loc: at(index),
        msg: `'${name}' is not a tracked package; the tracked packages are ${TRACKED_PACKAGES.join(", ")}`,
        type: "value_error",
      });
    } else if (seen.has(name)) {
      issues.push({ loc: at(index), msg: `'${name}' is listed twice`, type: "value_error" });
    }
    seen.add(name);
  });
  return issues;
}
