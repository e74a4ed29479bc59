import { endpointPublicHost } from "../../../policy/policies/endpoint-public-host";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases, type ResourceCase } from "./types";

const blocked = (host: string, reason: string) =>
  `url host "${host}" is ${reason}; the service never delivers there (every delivery would be blocked_address). ` +
  `Use a public host, or add it to allowedHosts in this policy's config if it is reachable publicly.`;

const endpoint = (url: string, extra: Partial<ResourceCase> = {}): ResourceCase => ({
  title: url,
  kind: "webhooks:Endpoint",
  props: inputs({ url }),
  violations: [],
  ...extra,
});

export const cases: PolicyCases = {
  policy: endpointPublicHost,
  resource: [
    endpoint("https://hooks.example.com/svc", { title: "public name passes" }),
    endpoint("https://93.184.216.34/hook", { title: "public IPv4 literal passes" }),
    endpoint("https://203.0.113.7/hook", { violations: [blocked("203.0.113.7", "a documentation address (203.0.113.0/24)")] }),
    endpoint("https://100.64.0.1/hook", { violations: [blocked("100.64.0.1", "a shared (carrier-grade NAT) address (100.64.0.0/10)")] }),
    endpoint("https://198.18.0.1/hook", { violations: [blocked("198.18.0.1", "a benchmarking address (198.18.0.0/15)")] }),
    endpoint("https://[2001:db8::1]/hook", { violations: [blocked("[2001:db8::1]", "a documentation address (2001:db8::/32)")] }),
    endpoint("https://[ff02::1]/hook", { violations: [blocked("[ff02::1]", "a multicast address (ff00::/8)")] }),
    endpoint("https://[64:ff9b::a00:1]/hook", { title: "NAT64 of a private address", violations: [blocked("[64:ff9b::a00:1]", "a private address (10.0.0.0/8)")] }),
    endpoint("https://172.32.0.1/", { title: "just outside 172.16/12 passes" }),
    endpoint("https://10.2.3.4/hook", { violations: [blocked("10.2.3.4", "a private address (10.0.0.0/8)")] }),
    endpoint("https://172.20.1.1/", { violations: [blocked("172.20.1.1", "a private address (172.16.0.0/12)")] }),
    endpoint("https://192.168.0.10:8443/x", { violations: [blocked("192.168.0.10", "a private address (192.168.0.0/16)")] }),
    endpoint("https://127.0.0.1/", { violations: [blocked("127.0.0.1", "a loopback address (127.0.0.0/8)")] }),
    endpoint("https://0x7f.1/", { title: "obfuscated loopback (0x7f.1)", violations: [blocked("127.0.0.1", "a loopback address (127.0.0.0/8)")] }),
    endpoint("https://169.254.169.254/latest", { violations: [blocked("169.254.169.254", "a link-local address (169.254.0.0/16)")] }),
    endpoint("https://[::1]/", { violations: [blocked("[::1]", "a loopback address (::1)")] }),
    endpoint("https://[fd12:3456::1]/", { violations: [blocked("[fd12:3456::1]", "a unique local address (fc00::/7)")] }),
    endpoint("https://[fe80::1]/", { violations: [blocked("[fe80::1]", "a link-local address (fe80::/10)")] }),
    endpoint("https://[::ffff:10.0.0.1]/", { title: "IPv4-mapped IPv6", violations: [blocked("[::ffff:a00:1]", "a private address (10.0.0.0/8)")] }),
    endpoint("https://localhost:3000/hook", { violations: [blocked("localhost", "a loopback name (localhost, *.localhost)")] }),
    endpoint("https://app.localhost/", { violations: [blocked("app.localhost", "a loopback name (localhost, *.localhost)")] }),
    endpoint("https://billing.corp.internal/hook", { violations: [blocked("billing.corp.internal", "an internal-only name (*.internal)")] }),
    endpoint("https://printer.local/", { violations: [blocked("printer.local", "a link-local multicast DNS name (*.local)")] }),
    endpoint("https://billing.corp.internal/hook", {
      title: "allowedHosts exempts a host by pattern",
      config: { allowedHosts: ["*.corp.internal"] },
    }),
    endpoint("https://10.2.3.4/hook", { title: "allowedHosts exempts an exact address", config: { allowedHosts: ["10.2.3.4"] } }),
    endpoint("https://other.internal/hook", {
      title: "allowedHosts exempts only what it names",
      config: { allowedHosts: ["*.corp.internal"] },
      violations: [blocked("other.internal", "an internal-only name (*.internal)")],
    }),
    {
      title: "operational endpoints too",
      kind: "webhooks:OperationalEndpoint",
      props: inputs({ url: "https://localhost/ops", eventTypes: ["delivery.dead"] }),
      violations: [blocked("localhost", "a loopback name (localhost, *.localhost)")],
    },
    endpoint(UNKNOWN_STRING, { title: "url unknown during preview: silent" }),
    endpoint("not a url", { title: "unparsable URL: left to endpoint-https-only" }),
  ],
};
