/**
 * What the generated `Endpoint` class (./endpoint.ts) cannot say: its `customHeaders`
 * argument also takes a `Map` (which Pulumi would serialize as `{}`, dropping every
 * header), a header named like a prototype key is refused with the rules' message, and
 * the names of the headers given in plaintext are handed to policy packs
 * (`plaintextHeaderNames`). Fields marked `sdk.extraProps` in provider/webhooks/endpoint.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { PROTOTYPE_KEY_NAMES, prototypeKeyHeaderMessage } from "../../rules/endpoint";
import type { EndpointArgs } from "./endpoint";

type HeadersArg = NonNullable<EndpointArgs["customHeaders"]>;

export function extraProps(args: EndpointArgs, props: Record<string, unknown>): void {
  const customHeaders = args.customHeaders === undefined ? undefined : headersInput(args.customHeaders);
  // Secrets in the program's hands stay secrets in the state and the CLI output.
  props.customHeaders = customHeaders === undefined ? undefined : pulumi.secret(customHeaders);
  props.plaintextHeaderNames = customHeaders === undefined ? undefined : namesGivenInPlaintext(customHeaders);
}

/**
 * Custom headers as a plain object of name → value. A Map is taken as its entries; a
 * header named like a prototype key (which serialization drops) is refused.
 */
function headersInput(headers: unknown): HeadersArg {
  if (pulumi.Output.isInstance(headers) || headers instanceof Promise) {
    const later = pulumi.output(headers as pulumi.Input<Record<string, string>>);
    return later.apply(plainHeaders) as unknown as HeadersArg;
  }
  return plainHeaders(headers) as HeadersArg;
}

function plainHeaders(headers: unknown): unknown {
  const entries = headers instanceof Map ? [...headers.entries()] : headers && typeof headers === "object" ? Object.entries(headers) : undefined;
  if (!entries) return headers;
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    if (PROTOTYPE_KEY_NAMES.includes(String(name).toLowerCase())) throw new Error(`customHeaders[${JSON.stringify(name)}]: ${prototypeKeyHeaderMessage(String(name))}`);
    // defineProperty: a plain assignment of "__proto__" would set the prototype instead of a key.
    Object.defineProperty(out, String(name), { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The header names whose values the program did not mark secret: a plain string,
 * a promise, or a non-secret Output. Computed before the SDK wraps the map in a
 * secret, the only moment that knowledge exists. Names only: the result is not secret.
 */
function namesGivenInPlaintext(headers: HeadersArg): pulumi.Output<string[]> {
  if (pulumi.Output.isInstance(headers)) {
    // One Output for the whole map: all plaintext or all secret.
    const map = headers as pulumi.Output<Record<string, pulumi.Input<string>>>;
    const names = map.apply((h) => Object.keys(h ?? {}).sort());
    // Names are not sensitive: unsecret them even when derived from a secret map.
    return pulumi.unsecret(pulumi.all([pulumi.isSecret(map), names]).apply(([secret, list]) => (secret ? [] : list)));
  }
  const names = Object.entries(headers).map(([name, value]) =>
    pulumi.Output.isInstance(value) ? pulumi.output(pulumi.isSecret(value)).apply((secret) => (secret ? undefined : name)) : name,
  );
  return pulumi.all(names).apply((list) => list.filter((n): n is string => n !== undefined).sort());
}
