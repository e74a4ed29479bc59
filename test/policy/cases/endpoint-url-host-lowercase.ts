import { endpointUrlHostLowercase } from "../../../policy/policies/endpoint-url-host-lowercase";
import { UNKNOWN_STRING, secret } from "../wire";
import { inputs, type PolicyCases } from "./types";

export const cases: PolicyCases = {
  policy: endpointUrlHostLowercase,
  resource: [
    {
      title: "lower-case host passes; path and query case are not its business",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://hooks.example.com/Path/To?Token=AbC" }),
      violations: [],
      remediated: null,
    },
    {
      title: "lower-cases the host only: userinfo, path, query, fragment kept byte for byte",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://User:Pa%5Ess@Hooks.Example.COM:8443/In/%7Euser/Ä?Q=A%20B&x=Y#Frag", maxAttempts: 3 }),
      violations: ['url host "Hooks.Example.COM:8443" has upper-case letters; host names are case-insensitive, write it as "hooks.example.com:8443".'],
      remediated: inputs({ url: "https://User:Pa%5Ess@hooks.example.com:8443/In/%7Euser/Ä?Q=A%20B&x=Y#Frag", maxAttempts: 3 }),
    },
    {
      title: "an @ in the password stays in the userinfo: only the host after the last @ changes, and no message quotes the userinfo",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://u:P@SS@Hooks.Example.com/x" }),
      violations: ['url host "Hooks.Example.com" has upper-case letters; host names are case-insensitive, write it as "hooks.example.com".'],
      remediated: inputs({ url: "https://u:P@SS@hooks.example.com/x" }),
    },
    {
      title: "an unencoded # in the password leaves no valid authority (the URL does not parse): silent, no part of it quoted",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://svc:Xy7#Ab9@Hooks.Example.com/x" }),
      violations: [],
      remediated: null,
    },
    {
      title: "an unencoded ? in the password: silent too",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://svc:Xy7?Ab9@Hooks.Example.com/x" }),
      violations: [],
      remediated: null,
    },
    {
      title: "an unencoded / in the password: silent",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://svc:Xy7/Ab9@Hooks.Example.com/x" }),
      violations: [],
      remediated: null,
    },
    {
      title: "a backslash ends the authority as a URL parser reads it: the path after it is kept",
      kind: "webhooks:Endpoint",
      props: inputs({ url: "https://Hooks.Example.com\\Path/To" }),
      violations: ['url host "Hooks.Example.com" has upper-case letters; host names are case-insensitive, write it as "hooks.example.com".'],
      remediated: inputs({ url: "https://hooks.example.com\\Path/To" }),
    },
    {
      title: "a secret URL stays secret",
      kind: "webhooks:Endpoint",
      props: inputs({ url: secret("https://HOOKS.example.com/T0KEN") }),
      violations: ['url host "HOOKS.example.com" has upper-case letters; host names are case-insensitive, write it as "hooks.example.com".'],
      remediated: inputs({ url: secret("https://hooks.example.com/T0KEN") }),
    },
    {
      title: "operational endpoints too",
      kind: "webhooks:OperationalEndpoint",
      props: inputs({ url: "https://Ops.Example.com/", eventTypes: ["delivery.dead"] }),
      violations: ['url host "Ops.Example.com" has upper-case letters; host names are case-insensitive, write it as "ops.example.com".'],
      remediated: inputs({ url: "https://ops.example.com/", eventTypes: ["delivery.dead"] }),
    },
    {
      title: "url unknown during preview: silent",
      kind: "webhooks:Endpoint",
      props: inputs({ url: UNKNOWN_STRING }),
      violations: [],
      remediated: null,
    },
  ],
};
