/**
 * What the generated `Endpoint` class (./endpoint.ts) cannot say: its `customHeaders`
 * argument also takes a `Map` (which Pulumi would serialize as `{}`, dropping every
 * header); the names of the headers are handed to the provider's check
 * (`declaredHeaderNames`: the secret map is unknown at preview as a whole while any value
 * in it is, and serialization drops a header named `__proto__`), and those given in
 * plaintext to policy packs (`plaintextHeaderNames`). Fields marked `sdk.extraProps` in
 * provider/webhooks/endpoint.ts. A value of the wrong type (an array, a string) is passed
 * on as given, for the provider's check to name: nothing here throws.
 */
import * as pulumi from "@pulumi/pulumi";
import type { EndpointArgs } from "./endpoint";

type HeadersArg = NonNullable<EndpointArgs["customHeaders"]>;

export function extraProps(args: EndpointArgs, props: Record<string, unknown>): void {
  const given: unknown = args.customHeaders;
  // null: taken as left out (no headers: the service's map is cleared); nothing to hide or name.
  if (given === undefined || given === null) {
    props.customHeaders = undefined;
    props.declaredHeaderNames = props.plaintextHeaderNames = undefined;
    return;
  }
  const customHeaders = headersInput(given);
  // Secrets in the program's hands stay secrets in the state and the CLI output.
  props.customHeaders = pulumi.secret(customHeaders);
  props.declaredHeaderNames = isHeaderMap(customHeaders) ? namesOf(customHeaders) : undefined;
  props.plaintextHeaderNames = isHeaderMap(customHeaders) ? namesGivenInPlaintext(customHeaders) : undefined;
}

/** A plain object or a `Map` of headers, or an Output or promise of one (whose type is known only later). */
const isHeaderMap = (headers: unknown): headers is HeadersArg => pulumi.Output.isInstance(headers) || isPlainMap(headers);
const isPlainMap = (headers: unknown): boolean => headers instanceof Map || (!!headers && typeof headers === "object" && !Array.isArray(headers) && !(headers instanceof Promise));

/** Custom headers as a plain object of name → value (a Map taken as its entries); anything else as given. */
function headersInput(headers: unknown): unknown {
  if (pulumi.Output.isInstance(headers) || headers instanceof Promise) {
    return (pulumi.output(headers as pulumi.Input<object>) as pulumi.Output<unknown>).apply(plainHeaders);
  }
  return plainHeaders(headers);
}

function plainHeaders(headers: unknown): unknown {
  if (!isPlainMap(headers)) return headers;
  const entries = headers instanceof Map ? [...(headers as Map<unknown, unknown>).entries()] : Object.entries(headers as object);
  const out: Record<string, unknown> = {};
  // defineProperty: a plain assignment of "__proto__" would set the prototype instead of a key.
  for (const [name, value] of entries) Object.defineProperty(out, String(name), { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Every header name, for the provider's check: known at preview whenever the program wrote the map itself (not
 * one Output of it), whatever its values are. Names only: the result is not secret.
 */
function namesOf(headers: HeadersArg): pulumi.Output<string[] | undefined> | string[] {
  if (!pulumi.Output.isInstance(headers)) return Object.keys(headers).sort();
  const names = (headers as pulumi.Output<unknown>).apply((h) => (isPlainMap(h) ? Object.keys(h as object).sort() : undefined));
  return pulumi.unsecret(names);
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
    const names = map.apply((h) => (isPlainMap(h) ? Object.keys(h).sort() : []));
    // Names are not sensitive: unsecret them even when derived from a secret map.
    return pulumi.unsecret(pulumi.all([pulumi.isSecret(map), names]).apply(([secret, list]) => (secret ? [] : list)));
  }
  const names = Object.entries(headers).map(([name, value]) =>
    pulumi.Output.isInstance(value) ? pulumi.output(pulumi.isSecret(value)).apply((secret) => (secret ? undefined : name)) : name,
  );
  return pulumi.all(names).apply((list) => list.filter((n): n is string => n !== undefined).sort());
}
