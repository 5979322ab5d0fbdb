// Enumerations and helpers (spec sections 2 and 3, service-facts.md "Revision").
import { describe, expect, it } from "vitest";
import {
  failureStatusFor,
  isTerminalRevisionStatus,
  isUuid,
  REVISION_FAILURES,
  REVISION_SOURCES,
  REVISION_STATUSES,
  REVISION_SUCCESS,
  revisionStages,
  SOURCES,
} from "./index.js";

const IN_PROGRESS = [
  "CREATING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILDING",
  "AWAITING_DEPLOY",
  "DEPLOYING",
  "UNKNOWN",
];
const FAILURES = ["CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED"];

describe("revision statuses", () => {
  it("lists every status of service-facts.md", () => {
    expect([...REVISION_STATUSES].sort()).toEqual([...IN_PROGRESS, ...FAILURES, "DEPLOYED"].sort());
    expect(REVISION_SUCCESS).toBe("DEPLOYED");
    expect([...REVISION_FAILURES].sort()).toEqual([...FAILURES].sort());
  });
  it("DEPLOYED and the five failures are terminal", () => {
    for (const status of ["DEPLOYED", ...FAILURES])
      expect(isTerminalRevisionStatus(status), status).toBe(true);
  });
  it("UNKNOWN and every in-progress status are not terminal", () => {
    for (const status of IN_PROGRESS) expect(isTerminalRevisionStatus(status), status).toBe(false);
  });
  it("SKIPPED and INTERRUPTED are failures, not successes", () => {
    expect(REVISION_FAILURES).toContain("SKIPPED");
    expect(REVISION_FAILURES).toContain("INTERRUPTED");
    expect(REVISION_FAILURES).not.toContain("DEPLOYED");
  });
  it("unknown strings are not terminal", () => {
    for (const status of ["", "deployed", "FAILED", "DONE"])
      expect(isTerminalRevisionStatus(status), status).toBe(false);
  });
});

describe("revisionStages", () => {
  it("built sources pass through AWAITING_BUILD and BUILDING", () => {
    for (const source of ["gitrepo", "internal_source"] as const) {
      expect(revisionStages(source)).toEqual([
        "CREATING",
        "QUEUED",
        "AWAITING_BUILD",
        "BUILDING",
        "AWAITING_DEPLOY",
        "DEPLOYING",
      ]);
    }
  });
  it("container sources go from QUEUED to AWAITING_DEPLOY", () => {
    for (const source of ["external_container", "internal_container"] as const) {
      expect(revisionStages(source)).toEqual(["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING"]);
    }
  });
  it("every stage is an in-progress status", () => {
    for (const source of SOURCES) {
      for (const stage of revisionStages(source)) {
        expect(REVISION_STATUSES).toContain(stage);
        expect(isTerminalRevisionStatus(stage)).toBe(false);
      }
    }
  });
});

describe("failureStatusFor", () => {
  it("maps each stage to the failure it ends in", () => {
    expect(failureStatusFor("CREATING")).toBe("CREATE_FAILED");
    expect(failureStatusFor("QUEUED")).toBe("CREATE_FAILED");
    expect(failureStatusFor("AWAITING_BUILD")).toBe("BUILD_FAILED");
    expect(failureStatusFor("BUILDING")).toBe("BUILD_FAILED");
    expect(failureStatusFor("AWAITING_DEPLOY")).toBe("DEPLOY_FAILED");
    expect(failureStatusFor("DEPLOYING")).toBe("DEPLOY_FAILED");
  });
  it("always gives a terminal failure", () => {
    for (const source of SOURCES) {
      for (const stage of revisionStages(source)) {
        const failure = failureStatusFor(stage);
        expect(REVISION_FAILURES).toContain(failure);
        expect(isTerminalRevisionStatus(failure)).toBe(true);
      }
    }
  });
});

describe("sources", () => {
  it("match the spec's enumerations", () => {
    expect(SOURCES).toEqual(["gitrepo", "external_container", "internal_container", "internal_source"]);
    // PATCH revision_source may not name external_container (spec 4.3).
    expect(REVISION_SOURCES).toEqual(["gitrepo", "internal_container", "internal_source"]);
  });
});

describe("isUuid", () => {
  it("accepts 8-4-4-4-12 hexadecimal, any case", () => {
    expect(isUuid("0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40")).toBe(true);
    expect(isUuid("0B0C6A51-8F0E-4C5E-9A43-3F7D8B1E2C40")).toBe(true);
    expect(isUuid("00000000-0000-0000-0000-000000000000")).toBe(true);
  });
  it("refuses anything else", () => {
    for (const value of [
      "",
      "my-agent",
      "0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c4",
      "0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c400",
      "0b0c6a518f0e4c5e9a433f7d8b1e2c40",
      "g0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40",
      " 0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40",
      "0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40\n",
      "{0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40}",
    ]) {
      expect(isUuid(value), JSON.stringify(value)).toBe(false);
    }
  });
});
