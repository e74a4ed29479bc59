/**
 * The service never delivers to a host that resolves to a private or non-public
 * address: every delivery would end as `blocked_address` (spec 2, Events). Catch
 * the URLs that say so themselves (IP literals in any non-public range, in any
 * notation; localhost, *.internal, *.local: rules/addresses.ts) before anything is created. Hosts that are
 * reachable publicly despite their name can be exempted with `allowedHosts`.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, readConfig } from "../lib/config";
import { nonPublicHost } from "../../rules/addresses";
import { hostAllowed } from "../lib/hosts";
import { validateKinds } from "../lib/match";

export interface EndpointPublicHostConfig {
  allowedHosts: string[];
}

const schema = configSchema<EndpointPublicHostConfig>({
  allowedHosts: {
    type: "array",
    items: { type: "string", minLength: 1 },
    default: [],
    description: "Hosts exempt from this policy: exact names, or `*.example.com` for every name below example.com.",
  },
});

export const endpointPublicHost: ResourceValidationPolicy = {
  name: "endpoint-public-host",
  description: "Endpoints deliver only to public hosts: no private, loopback, link-local or otherwise non-public addresses or names.",
  enforcementLevel: "mandatory",
  remediationSteps:
    "Point url at a publicly reachable host name. If the host is public despite its name, add it to this policy's allowedHosts config.",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:Endpoint", "webhooks:OperationalEndpoint"], (inputs, { args }, report) => {
    if (typeof inputs.url !== "string") return;
    let hostname: string;
    try {
      hostname = new URL(inputs.url).hostname;
    } catch {
      return; // not a URL at all: endpoint-https-only reports it
    }
    const blocked = nonPublicHost(hostname);
    if (!blocked) return;
    const { allowedHosts } = readConfig(schema, args);
    if (hostAllowed(hostname, allowedHosts)) return;
    report(
      `url host "${hostname}" is ${blocked.reason}; the service never delivers there (every delivery would be blocked_address). ` +
        `Use a public host, or add it to allowedHosts in this policy's config if it is reachable publicly.`,
    );
  }),
};
