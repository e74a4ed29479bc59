import { endpointHttpsOnly } from "../../../policy/policies/endpoint-https-only";
import { UNKNOWN_STRING, secret } from "../wire";
import { inputs, type PolicyCases } from "./types";

export const cases: PolicyCases = {
  policy: endpointHttpsOnly,
  resource: [
    { title: "https endpoint passes", kind: "webhooks:Endpoint", props: inputs({ url: "https://hooks.example.com/svc" }), violations: [] },
    { title: "upper-case HTTPS scheme passes", kind: "webhooks:Endpoint", props: inputs({ url: "HTTPS://hooks.example.com/svc" }), violations: [] },
    {
      title: "http endpoint is refused, naming only the scheme",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "http://hooks.example.com/svc?token=abc" }),
      violations: ['url uses "http:"; it must be an absolute https:// URL. Change the scheme to https://.'],
    },
    {
      title: "a secret http URL is refused without printing it",
      kind: "webhooks:Endpoint",
      props: inputs({ url: secret("http://hooks.example.com/T0K3N-in-path") }),
      violations: ['url uses "http:"; it must be an absolute https:// URL. Change the scheme to https://.'],
    },
    {
      title: "a relative URL is refused",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "hooks.example.com/svc" }),
      violations: ["url is not an absolute URL; give an absolute https:// URL with a host."],
    },
    {
      title: "operational endpoints too",
      kind: "webhooks:OperationalEndpoint",
      props: inputs({ url: "ftp://ops.example.com/", eventTypes: ["delivery.dead"] }),
      violations: ['url uses "ftp:"; it must be an absolute https:// URL. Change the scheme to https://.'],
    },
    { title: "url unknown during preview: silent", kind: "webhooks:Endpoint", props: inputs({ url: UNKNOWN_STRING }), violations: [] },
    { title: "other resource types are ignored", kind: "webhooks:Source", props: inputs({ provider: "generic", name: "http://x" }), violations: [] },
  ],
};
