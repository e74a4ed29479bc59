import { endpointHeaderNameCase } from "../../../policy/policies/endpoint-header-name-case";
import { UNKNOWN_STRING, secret } from "../wire";
import { inputs, type PolicyCases } from "./types";

const url = "https://hooks.example.com/svc";
const notCanonical = (name: string, canonical: string) => `customHeaders name "${name}" is not in canonical case; write it as "${canonical}".`;

export const cases: PolicyCases = {
  policy: endpointHeaderNameCase,
  resource: [
    {
      title: "canonical names pass and are left alone",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: secret({ "X-Api-Key": "v1", Authorization: "v2" }), plaintextHeaderNames: [] }),
      violations: [],
      remediated: null,
    },
    {
      title: "renames names only: values, their secretness and every other property untouched",
      kind: "webhooks:Endpoint",
      props: inputs({
        url,
        maxAttempts: 5,
        customHeaders: { "x-api-key": secret("Secret-Value-1"), "X-TEAM": secret("MixedCase Value"), "X-Ok": secret("ok") },
        plaintextHeaderNames: ["X-TEAM"],
      }),
      violations: [notCanonical("X-TEAM", "X-Team"), notCanonical("x-api-key", "X-Api-Key")],
      remediated: inputs({
        url,
        maxAttempts: 5,
        customHeaders: { "X-Api-Key": secret("Secret-Value-1"), "X-Team": secret("MixedCase Value"), "X-Ok": secret("ok") },
        plaintextHeaderNames: ["X-Team"],
      }),
    },
    {
      title: "a header map that is one secret stays one secret",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: secret({ "x-request-source": "svc", "content-md5": "abc" }) }),
      violations: [notCanonical("content-md5", "Content-Md5"), notCanonical("x-request-source", "X-Request-Source")],
      remediated: inputs({ url, customHeaders: secret({ "X-Request-Source": "svc", "Content-Md5": "abc" }) }),
    },
    {
      title: "names that differ only in case are reported, not renamed",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: secret({ "x-team": "a", "X-Team": "b", "x-other": "c" }) }),
      violations: [
        'customHeaders names "X-Team" and "x-team" differ only in case; header names are case-insensitive, so keep one of them.',
        notCanonical("x-other", "X-Other"),
      ],
      remediated: null,
    },
    {
      title: "a value unknown during preview is carried over unknown",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: { "x-trace": UNKNOWN_STRING } }),
      violations: [notCanonical("x-trace", "X-Trace")],
      remediated: inputs({ url, customHeaders: { "X-Trace": UNKNOWN_STRING } }),
    },
    {
      title: "a header map unknown during preview: silent",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: UNKNOWN_STRING }),
      violations: [],
      remediated: null,
    },
  ],
};
