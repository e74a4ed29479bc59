/**
 * Endpoint URL hosts in lower case. Host names are case-insensitive, so
 * `Hooks.Example.com` and `hooks.example.com` are one receiver written two ways;
 * writing them one way keeps diffs and reviews honest. The rename is safe only for
 * the host: path and query may be case-sensitive and are kept byte for byte (no URL
 * re-serialisation, which would re-encode them), as is any userinfo.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { remediateKinds, validateKinds } from "../lib/match";
import { isUnknown, mapKeepingSecret } from "../lib/props";

/**
 * scheme://, userinfo@ (optional), host[:port], then the rest (path, query, fragment)
 * untouched. The authority ends at the first `/`, `?`, `#` or `\` (a URL parser reads
 * `\` as `/` in http(s) URLs); userinfo runs to the authority's LAST `@`, as URL
 * parsers read it, so an `@` inside a password stays in the userinfo.
 */
const AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)((?:[^/?#\\]*@)?)([^/?#\\]*)([\s\S]*)$/;

interface UrlParts {
  prefix: string;
  userinfo: string;
  hostPort: string;
  rest: string;
}

/**
 * Undefined unless a URL parser accepts `url`: an unencoded `#`, `?` or `/` in a password
 * ends the authority early, and what follows the split would be part of the userinfo, which
 * no message or rewrite may touch. Once the URL parses, its authority is the one split here.
 */
function splitUrl(url: string): UrlParts | undefined {
  if (!URL.canParse(url)) return undefined;
  const m = AUTHORITY.exec(url);
  return m ? { prefix: m[1]!, userinfo: m[2]!, hostPort: m[3]!, rest: m[4]! } : undefined;
}

/** The URL with its host lower-cased, or undefined when it already is (or is not a URL with a host). */
export function lowerCaseHost(url: string): string | undefined {
  const parts = splitUrl(url);
  if (!parts || parts.hostPort === parts.hostPort.toLowerCase()) return undefined;
  return parts.prefix + parts.userinfo + parts.hostPort.toLowerCase() + parts.rest;
}

export const endpointUrlHostLowercase: ResourceValidationPolicy = {
  name: "endpoint-url-host-lowercase",
  description: "Endpoint URL hosts are written in lower case.",
  enforcementLevel: "remediate",
  remediationSteps:
    "Write the url's host in lower case; with enforcement `remediate` this policy does it itself and leaves the scheme, path and query exactly as written.",
  remediateResource: remediateKinds(["webhooks:Endpoint", "webhooks:OperationalEndpoint"], (raw) => {
    let changed = false;
    const url = mapKeepingSecret(raw["url"], (value) => {
      if (typeof value !== "string" || isUnknown(value)) return value;
      const lowered = lowerCaseHost(value);
      if (lowered === undefined) return value;
      changed = true;
      return lowered;
    });
    return changed ? { ...raw, url } : undefined;
  }),
  validateResource: validateKinds(["webhooks:Endpoint", "webhooks:OperationalEndpoint"], (inputs, _ctx, report) => {
    if (typeof inputs.url !== "string") return;
    const parts = splitUrl(inputs.url);
    if (!parts || parts.hostPort === parts.hostPort.toLowerCase()) return;
    report(
      `url host ${JSON.stringify(parts.hostPort)} has upper-case letters; host names are case-insensitive, write it as ${JSON.stringify(parts.hostPort.toLowerCase())}.`,
    );
  }),
};
