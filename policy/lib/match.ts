/**
 * Matching resources by type token, with the inputs typed per resource kind.
 *
 * A pulumi-svc resource has one of two tokens: a dynamic resource of the TypeScript
 * SDK the token from sdk/tokens.ts (`pulumi-nodejs:dynamic/svc/webhooks:Endpoint`), a
 * resource of the native provider (`pulumi-resource-svc`: YAML and the other languages)
 * `svc:webhooks:Endpoint`. Matching on tokens rather than on SDK classes
 * (`validateResourceOfType(Endpoint, ...)`) keeps the pack independent of sdk/: it
 * needs neither the classes nor their dependencies at load time, and a token is what
 * the engine sends anyway.
 */
import type {
  ReportViolation,
  ResourceRemediation,
  ResourceValidation,
  ResourceValidationArgs,
  StackValidation,
  StackValidationArgs,
} from "@pulumi/policy";
import { RESOURCE_KINDS, TYPE_TOKENS, type ResourceKind } from "../../sdk/tokens";
import type { InputsOf } from "./inputs";
import { plain, rawCopy } from "./props";
import { redactingReport, secretValuesOf } from "./redact";
import { stackOfUrn } from "./stacks";

/** The native provider's token of a kind: `svc:webhooks:Endpoint`. */
export const nativeToken = (kind: ResourceKind): string => `svc:${kind}`;

const KIND_BY_TOKEN: ReadonlyMap<string, ResourceKind> = new Map(RESOURCE_KINDS.flatMap((k) => [[TYPE_TOKENS[k], k] as const, [nativeToken(k), k] as const]));

/** The pulumi-svc kind of an engine type token (dynamic or native), or undefined for anything else. */
export function kindOf(type: string): ResourceKind | undefined {
  return KIND_BY_TOKEN.get(type);
}

/** What a resource policy knows about the resource besides its inputs. */
export interface ResourceContext<K extends ResourceKind> {
  kind: K;
  name: string;
  urn: string;
  /** From the URN; undefined only if the URN is malformed. */
  stack: string | undefined;
  args: ResourceValidationArgs;
}

function contextOf<K extends ResourceKind>(kinds: readonly K[], args: ResourceValidationArgs): ResourceContext<K> | undefined {
  const kind = kindOf(args.type) as K | undefined;
  if (kind === undefined || !kinds.includes(kind)) return undefined;
  return { kind, name: args.name, urn: args.urn, stack: stackOfUrn(args.urn), args };
}

/** A resource validation for the given kinds; `inputs` is a plain copy (unknowns as `UNKNOWN`, secrets revealed). */
export function validateKinds<K extends ResourceKind>(
  kinds: readonly K[],
  validate: (inputs: InputsOf<K>, ctx: ResourceContext<K>, report: ReportViolation) => void,
): ResourceValidation {
  // Untagged (no `__pulumiType`, as `validateResourceOfType` sets): the analyzer would then skip every other
  // type, and a kind has two tokens. A resource of another kind passes through here unjudged.
  return (args, report) => {
    const ctx = contextOf(kinds, args);
    if (!ctx) return;
    const inputs = plain(args.props);
    validate(inputs as InputsOf<K>, ctx, redactingReport(report, secretValuesOf(ctx.kind, inputs)));
  };
}

/**
 * A resource remediation for the given kinds. `raw` is a shallow copy of the
 * properties with raw values (secrets still wrapped, unknowns still unknown); return
 * it changed to remediate, or undefined to leave the resource alone.
 */
export function remediateKinds<K extends ResourceKind>(
  kinds: readonly K[],
  remediate: (raw: Record<string, unknown>, inputs: InputsOf<K>, ctx: ResourceContext<K>) => Record<string, unknown> | undefined,
): ResourceRemediation {
  // Untagged, as validateKinds says.
  return (args) => {
    const ctx = contextOf(kinds, args);
    return ctx ? remediate(rawCopy(args.props), plain(args.props) as InputsOf<K>, ctx) : undefined;
  };
}

/** A resource of the stack as a stack policy sees it (its outputs, read like inputs). */
export interface StackResource<K extends ResourceKind> {
  kind: K;
  name: string;
  urn: string;
  props: InputsOf<K>;
}

export interface StackView {
  /** From the resources' URNs; undefined for an empty stack. */
  stack: string | undefined;
  ofKind<K extends ResourceKind>(kind: K): StackResource<K>[];
}

function stackView(args: StackValidationArgs): { view: StackView; secretValues: unknown[] } {
  const resources = args.resources.flatMap((r) => {
    const kind = kindOf(r.type);
    return kind ? [{ kind, name: r.name, urn: r.urn, props: plain(r.props) }] : [];
  });
  const firstUrn = args.resources[0]?.urn;
  const view: StackView = {
    stack: firstUrn === undefined ? undefined : stackOfUrn(firstUrn),
    ofKind: <K extends ResourceKind>(kind: K) => resources.filter((r) => r.kind === kind) as StackResource<K>[],
  };
  return { view, secretValues: resources.flatMap((r) => secretValuesOf(r.kind, r.props)) };
}

/** A stack validation over the stack's pulumi-svc resources; its `report` hides every secret of the stack. */
export function validateStackView(validate: (view: StackView, args: StackValidationArgs, report: ReportViolation) => void): StackValidation {
  return (args, report) => {
    const { view, secretValues } = stackView(args);
    validate(view, args, redactingReport(report, secretValues));
  };
}
