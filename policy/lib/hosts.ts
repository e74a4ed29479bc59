/**
 * Host matching for `allowedHosts`. Which hosts the service never delivers to is
 * decided once, in rules/addresses.ts (`nonPublicHost`), for the pack, the provider
 * and the emulator alike.
 */

/**
 * Does `hostname` match one of the `allowedHosts` patterns? A pattern is a host
 * name (exact, case-insensitive) or `*.example.com` for any name below it.
 */
export function hostAllowed(hostname: string, patterns: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return patterns.some((p) => {
    const pattern = p.toLowerCase().replace(/\.$/, "");
    if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
    return host === pattern || host === `[${pattern}]`;
  });
}
