// The wait flags shared by wait, and by every command with --wait (create, patch, apply,
// upload --patch, rollback, redeploy).
import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import { duration } from "../parsers.js";

export const timeoutOption = () =>
  new Option("--timeout <duration>", "give up waiting after this long (exit 6)")
    .default(30 * 60_000, "30m")
    .argParser(duration);

/** The public client polls every 1 to 3 s: a finished revision is noticed about one interval late. */
export const DEFAULT_INTERVAL_MS = 3_000;

export const intervalOption = () =>
  new Option(
    "--interval <duration>",
    "gap between polls; longer only while the server fails or asks to slow down (Retry-After, 429)",
  )
    .default(DEFAULT_INTERVAL_MS, "3s")
    .argParser(duration);

export const logsOption = () =>
  new Option(
    "--logs",
    "stream the revision's build log to stderr while waiting (on a terminal, whole lines above the spinner)",
  );

export const dotenvReportOption = () =>
  new Option(
    "--dotenv-report <file>",
    "write deployment_id, deployment_name, revision_id, status, result and url to FILE as NAME=VALUE lines (a GitLab dotenv report)",
  );

/** --wait and its companions, for a command that changes a deployment. */
export function addWaitOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  description = "then wait for the new revision (as `deploy wait`)",
) {
  return command
    .option("--wait", description)
    .addOption(timeoutOption())
    .addOption(intervalOption())
    .addOption(logsOption())
    .addOption(dotenvReportOption());
}

export const WAIT_HELP =
  "\nWaiting ends with exit 0 (DEPLOYED), 5 (the revision failed: the end of its log is shown), 6 (timed out) or 130 (Ctrl-C; the command to resume is printed).\n";

/** --verify and its companions (CLI.md "Releases"), for push, patch, apply, rollback and redeploy. */
export function addReleaseOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command
    .option(
      "--verify",
      "once the revision is DEPLOYED, check GET URL/ok (the deployment's custom_url, with the profile's credentials) until it answers {\"ok\": true}; implies --wait; exit 7 when it does not",
    )
    .addOption(
      new Option(
        "--verify-timeout <duration>",
        "how long the check may take (implies --verify; default 2m)",
      ).argParser(duration),
    )
    .option(
      "--verify-cmd <command>",
      "also run COMMAND through the shell with CPCTL_DEPLOYMENT_URL, CPCTL_DEPLOYMENT_ID and CPCTL_REVISION_ID set; non-zero fails the check (implies --verify)",
    )
    .option(
      "--rollback-on-failure",
      "when the new revision is unverified, or failed after it replaced the active one, start a revision from the one active before the change, wait for it and verify it; implies --wait",
    );
}

export const RELEASE_HELP = `
--verify checks the release once its revision is DEPLOYED: GET URL/ok every second until it
answers {"ok": true} (or --verify-timeout, 2m); --verify-cmd CMD then runs CMD (its output on
stderr). --rollback-on-failure goes back to the revision that was active before the change,
and only when the new one replaced it (a failed build replaced nothing: it says so). The
result is verified or unverified (-o json: "result", "verification", "rollback"); exit 7 when
unverified, rolled back or not; a failed revision stays exit 5.
`;
