// Keeps web pages out. The emulator listens on loopback, and any page open in the same
// user's browser can send requests there: a plain-text POST needs no CORS preflight, so
// without this a page could reset the emulator or inject faults (CSRF), and a page whose
// host name it re-points at 127.0.0.1 (DNS rebinding) could even read the answers.
//
// What the emulator's own clients (the CLI, curl, test code) never send is what gives a
// browser away:
// - `Origin` (browsers send it on every cross-origin request and every POST): refused
//   unless it is the emulator's own address, as the request's Host names it;
// - `Sec-Fetch-Site` other than same-origin or none (a user typing the URL);
// - a Host that is not a loopback name or address, while the emulator listens on loopback:
//   a rebinding page can only reach it under its own host name. Listening elsewhere
//   (--host 0.0.0.0 in a container) the emulator cannot know the names it is reached by, so
//   the Host is not checked there; Origin still is.
// And a control POST must say `Content-Type: application/json`, which a page can send to
// another site only after a CORS preflight that the emulator never grants.
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { HttpError } from "../responses.js";

/** The refusal for a request that comes from a web page, or null for one that does not. */
export function crossSiteRefusal(
  headers: IncomingHttpHeaders,
  method: string,
  isControl: boolean,
  listenHost: string,
): HttpError | null {
  const host = headers.host;
  const fetchSite = headers["sec-fetch-site"];
  if (fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none") {
    return refused(`it was sent by a web page of another site (Sec-Fetch-Site: ${fetchSite})`);
  }
  const origin = headers.origin;
  if (
    origin !== undefined &&
    (host === undefined || origin.toLowerCase() !== `http://${host.toLowerCase()}`)
  ) {
    return refused(`it was sent by a web page of another origin (${JSON.stringify(origin.slice(0, 100))})`);
  }
  if (host !== undefined && isLoopback(listenHost) && !isLoopback(hostName(host))) {
    return refused(
      `the Host header ${JSON.stringify(host.slice(0, 100))} is not a loopback name or address; call the emulator as localhost or 127.0.0.1`,
    );
  }
  if (isControl && method === "POST") {
    const type = (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") {
      return new HttpError(
        415,
        `Control requests must be sent with Content-Type: application/json, not ${JSON.stringify(type || "(none)")}.`,
      );
    }
  }
  return null;
}

function refused(reason: string): HttpError {
  return new HttpError(403, `Refused: ${reason}. The emulator does not answer requests from web pages.`);
}

/** "example.com:8124" -> "example.com", "[::1]:8124" -> "::1". */
function hostName(host: string): string {
  const text = host.trim().toLowerCase();
  if (text.startsWith("[")) return text.slice(1, text.indexOf("]") < 0 ? undefined : text.indexOf("]"));
  const colon = text.lastIndexOf(":");
  return colon < 0 ? text : text.slice(0, colon);
}

/** localhost and *.localhost (browsers resolve them to loopback themselves), 127/8, ::1. */
function isLoopback(name: string): boolean {
  const host = name.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}
