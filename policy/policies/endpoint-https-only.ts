/**
 * The service only delivers over https (spec 2: Endpoint `url` "must be https";
 * operational endpoints likewise). Predicting the 422 at preview keeps a plan from
 * half-applying. The message names the scheme only: a URL may carry a token in its
 * path or query.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { isHttpsUrl } from "../../rules/endpoint";
import { validateKinds } from "../lib/match";

export const endpointHttpsOnly: ResourceValidationPolicy = {
  name: "endpoint-https-only",
  description: "Endpoints and operational endpoints deliver only to absolute https:// URLs.",
  enforcementLevel: "mandatory",
  remediationSteps: "Change the endpoint's url to an https:// URL; the service refuses any other scheme.",
  validateResource: validateKinds(["webhooks:Endpoint", "webhooks:OperationalEndpoint"], (inputs, _ctx, report) => {
    const url = inputs.url;
    if (typeof url !== "string" || isHttpsUrl(url)) return;
    let scheme: string;
    try {
      scheme = new URL(url).protocol;
    } catch {
      report("url is not an absolute URL; give an absolute https:// URL with a host.");
      return;
    }
    report(`url uses "${scheme}"; it must be an absolute https:// URL. Change the scheme to https://.`);
  }),
};
