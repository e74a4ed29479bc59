/**
 * Matching resources by type token, with the inputs typed per resource kind.
 *
 * Every pulumi-svc resource is a dynamic resource, so the engine's type is the
 * token from sdk/tokens.ts (`pulumi-nodejs:dynamic/svc/webhooks:Endpoint`). Matching
 * on tokens rather than on SDK classes (`validateResourceOfType(Endpoint, ...)`)
 * keeps the pack independent of sdk/: it needs neither the classes nor their
 * dependencies at load time, and a token is what the engine sends anyway.
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

const KIND_BY_TOKEN: ReadonlyMap<string, ResourceKind> = new Map(RESOURCE_KINDS.map((k) => [TYPE_TOKENS[k], k]));

/** The pulumi-svc kind of an engine type token, or undefined for anything else. */
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

/**
 * When a policy applies to a single kind, tag the function with its token the way
 * `validateResourceOfType` does, so the analyzer server skips other types and
 * reports the policy as not applicable to them.
 */
function tagSingleKind<F extends object>(fn: F, kinds: readonly ResourceKind[]): F {
  if (kinds.length === 1) Object.assign(fn, { __pulumiType: TYPE_TOKENS[kinds[0]!] });
  return fn;
}

/** A resource validation for the given kinds; `inputs` is a plain copy (unknowns as `UNKNOWN`, secrets revealed). */
export function validateKinds<K extends ResourceKind>(
  kinds: readonly K[],
  validate: (inputs: InputsOf<K>, ctx: ResourceContext<K>, report: ReportViolation) => void,
): ResourceValidation {
  const fn: ResourceValidation = (args, report) => {
    const ctx = contextOf(kinds, args);
    if (!ctx) return;
    const inputs = plain(args.props);
    validate(inputs as InputsOf<K>, ctx, redactingReport(report, secretValuesOf(ctx.kind, inputs)));
  };
  return tagSingleKind(fn, kinds);
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
  const fn: ResourceRemediation = (args) => {
    const ctx = contextOf(kinds, args);
    return ctx ? remediate(rawCopy(args.props), plain(args.props) as InputsOf<K>, ctx) : undefined;
  };
  return tagSingleKind(fn, kinds);
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
