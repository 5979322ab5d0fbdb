// The wait flags shared by wait, create --wait, patch --wait and apply --wait.
import { Option } from "@commander-js/extra-typings";
import { duration } from "../parsers.js";

export const timeoutOption = () =>
  new Option("--timeout <duration>", "give up waiting after this long (exit 6)")
    .default(30 * 60_000, "30m")
    .argParser(duration);

export const intervalOption = () =>
  new Option("--interval <duration>", "first gap between polls, growing to at most 60s")
    .default(5_000, "5s")
    .argParser(duration);

export const WAIT_HELP =
  "\nWaiting ends with exit 0 (DEPLOYED), 5 (the revision failed), 6 (timed out) or 130 (Ctrl-C; the command to resume is printed).\n";
