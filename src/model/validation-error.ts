// The model refused a request body before it was sent: a usage error (exit 2) that carries the
// issues, in the API's own 422 shape, for the JSON error object's details.
import { UsageError } from "../errors.js";
import type { FieldIssue } from "./issue-path.js";

/** The model refused a request body before it was sent. Exit 2. */
export class ValidationError extends UsageError {
  override readonly code = "validation";
  constructor(
    message: string,
    readonly issues: FieldIssue[],
  ) {
    super(message, issues);
  }
}
