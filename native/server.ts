/**
 * The ResourceProvider gRPC service of `pulumi-resource-svc`, on the generated stubs
 * shipped in @pulumi/pulumi (its own `provider.main` server never calls CheckConfig or
 * Configure with the config, hands secrets over as raw envelopes and gives Read no
 * inputs: pulumi#10915). Every resource operation goes to operations.ts; values cross
 * through values.ts.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as fs from "node:fs";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";
import * as grpc from "@grpc/grpc-js";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";
import * as pluginproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { apiKeysIn, configSetCommand, resolveConnection, InvalidSettingError, PRODUCTS } from "../provider/config";
import { unknownConfigKeyWarnings } from "../provider/config-keys";
import type { CheckFailure, Props } from "../provider/engine/fields";
import type { ReachRecord } from "../provider/engine/reach";
import { PACKAGE_ROOT, PACKAGE_VERSION } from "../provider/version";
import * as ops from "./operations";
import { heldSecret, sealedNames, unwrap, wrap } from "./values";

/**
 * In this plugin's own config as the engine stores it (CheckConfig's answer, never the stack's config): where each API
 * key reached at the last run (provider/engine/reach.ts `movedKeys`), to judge a key changed when the old one no longer answers.
 */
const REACH_RECORD_KEY = "__reached";

interface SchemaResource {
  properties?: Record<string, { secret?: boolean }>;
  inputProperties?: Record<string, { secret?: boolean }>;
}

/** schema.json as shipped beside package.json (`npm run generate` writes it from the definitions). */
function loadSchema(): { text: string; resources: Record<string, SchemaResource>; provider: SchemaResource } {
  if (!PACKAGE_ROOT) throw new Error("pulumi-resource-svc cannot find its package directory (package.json of pulumi-svc)");
  const text = fs.readFileSync(path.join(PACKAGE_ROOT, "schema.json"), "utf8");
  const parsed = JSON.parse(text) as { resources: Record<string, SchemaResource>; provider: SchemaResource };
  return { text, resources: parsed.resources, provider: parsed.provider };
}

const secretIn = (props: Record<string, { secret?: boolean }> | undefined) => Object.entries(props ?? {}).filter(([, p]) => p.secret).map(([n]) => n);

/** The resource type of a request: its `type`, else the last type of its URN (`...::parent$svc:x:Y::name`). */
function typeOf(req: { getType(): string; getUrn(): string }): string {
  return req.getType() || (req.getUrn().split("::")[2] ?? "").split("$").pop()!;
}

/** A gRPC error; a PartialFailure (the object exists) carries its id and properties, as the engine expects. */
function toGrpcError(err: unknown, secret: Iterable<string>): Partial<grpc.StatusObject> {
  const message = err instanceof Error ? err.message : String(err);
  const metadata = new grpc.Metadata();
  const partial = ops.partialFailureOf(err);
  if (partial) {
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(partial.id);
    detail.setProperties(wrap(partial.properties, secret));
    detail.setReasonsList(partial.reasons);
    const any = new anyproto.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}

export function providerService(engineAddress: string | undefined): provrpc.IResourceProviderServer {
  const schema = loadSchema();
  /** The provider's settings the schema marks secret (API keys, profiles): CheckConfig answers each held in a list. */
  const secretSettings = secretIn(schema.provider.inputProperties);
  /** The stack's settings among the provider's stored inputs: without the reach record CheckConfig adds (a key's reach is no setting). */
  const settingsOf = (props: Props): Props => {
    const { [REACH_RECORD_KEY]: _record, ...settings } = released(props, secretSettings);
    return settings;
  };
  /** Outputs that go back secret: the schema's secret properties and whatever came in secret. */
  const secretOutputs = (token: string, inputSecrets: readonly string[]) => [...secretIn(schema.resources[token]?.properties), ...inputSecrets];
  const secretInputs = (token: string, inputSecrets: readonly string[]) => [...secretIn(schema.resources[token]?.inputProperties), ...inputSecrets];
  const engine = engineAddress ? new enginerpc.EngineClient(engineAddress, grpc.credentials.createInsecure()) : undefined;

  /** A warning the CLI shows, on the resource `urn` ("" for none): through the engine's Log service, or stderr without an engine. */
  function warn(urn: string, message: string): Promise<void> {
    if (!engine) return Promise.resolve(void process.stderr.write(`warning: ${message}\n`));
    const req = new engineproto.LogRequest();
    req.setSeverity(engineproto.LogSeverity.WARNING);
    req.setUrn(urn);
    req.setMessage(message);
    return new Promise((resolve) => engine.log(req, () => resolve()));
  }

  // The provider's warnings (stderr, which the CLI shows only at -v=9) go to the engine's log, on the resource of
  // the call that raised them; the call answers once they are delivered, so none is lost at the run's end.
  const calls = new AsyncLocalStorage<{ urn: string; pending: Promise<void>[] }>();
  ops.sendWarningsTo((message) => {
    const call = calls.getStore();
    const sent = warn(call?.urn ?? "", message);
    call?.pending.push(sent);
  });

  /** One unary handler: the answer, or the error as the engine reads it. */
  function unary<Req, Res>(handle: (req: Req) => Promise<Res>, secretOf: (req: Req) => Iterable<string> = () => []): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      const context = { urn: (call.request as { getUrn?(): string }).getUrn?.() ?? "", pending: [] as Promise<void>[] };
      const logged = () => Promise.all(context.pending);
      calls.run(context, () => handle(call.request)).then(
        (res) => logged().then(() => callback(null, res)),
        (err: unknown) => logged().then(() => callback(toGrpcError(err, secretOf(call.request)))),
      );
    };
  }

  const empty = () => Promise.resolve(new emptyproto.Empty());
  /** CheckConfig answered in this process: it returned every API key of the config as a secret. */
  let configChecked = false;
  /**
   * Configured with no CheckConfig before it: the engine configures a provider the state holds with the inputs it
   * stored at the stack's last update, not the stack's config now (pkg/resource/deploy/providers/registry.go,
   * `Same`; `pulumi import` uses such a provider as it is: pkg/resource/deploy/import.go, `registerProviders`).
   */
  let configuredFromState = false;

  return {
    getPluginInfo: unary(async () => new pluginproto.PluginInfo().setVersion(PACKAGE_VERSION)),
    attach: unary(empty),
    // The engine stops starting operations (Ctrl-C); those in flight run to their end so that their
    // outcome reaches the state: a create cut off mid-call leaves an object the state does not know.
    cancel: unary(empty),
    getSchema: unary(async (req: provproto.GetSchemaRequest) => {
      if (req.getSubpackageName()) throw new Error(`pulumi-resource-svc has no subpackage ${req.getSubpackageName()}`);
      return new provproto.GetSchemaResponse().setSchema(schema.text);
    }),

    checkConfig: unary(async (req: provproto.CheckRequest) => {
      const { props } = unwrap(req.getNews());
      const source = configSource(props);
      const reasons = new Set<string>();
      // A setting that cannot be read fails the preview here; a missing one fails only the resources that need it.
      for (const product of PRODUCTS) {
        try {
          resolveConnection(source, product);
        } catch (err) {
          if (err instanceof InvalidSettingError || (err as Error).message.includes("svc:profiles")) reasons.add((err as Error).message);
        }
      }
      // The settings the schema marks secret (API keys, profiles) go back as secrets even when the stack's config holds
      // them in plaintext (set without --secret), so the provider's state never does. The engine gives CheckConfig no
      // secret marks (pkg/resource/plugin/provider_plugin.go, CheckConfig: marshalled without KeepSecrets, the marks
      // copied back onto the answer by annotateSecrets), so each goes back held in a plain list: the engine marks the
      // list secret only when the stack's config holds the setting as a secret, and Configure reads that mark.
      // A key changed to one of another workspace (or project) fails here, before any step: a replacement
      // named by `pulumi up --replace` is checked with no old inputs and gets no Diff (provider/engine/reach.ts).
      // Where each key reaches goes back with the config, so that the engine keeps it for the next run's comparison.
      const olds = unwrap(req.getOlds()).props;
      let reached: Props = {};
      if (reasons.size === 0) {
        const moved = await ops.movedKeys(configSource(released(olds, secretSettings)), source, recordOf(olds), explicitProviderName(req.getUrn()));
        for (const why of moved.reasons) reasons.add(why);
        reached = moved.reached;
      }
      const held = Object.fromEntries(secretSettings.filter((k) => props[k] !== undefined && props[k] !== null).map((k) => [k, heldSecret(props[k])]));
      const res = new provproto.CheckResponse().setInputs(wrap({ ...props, ...held, ...(Object.keys(reached).length > 0 ? { [REACH_RECORD_KEY]: reached } : {}) }, []));
      res.setFailuresList([...reasons].map((reason) => new provproto.CheckFailure().setReason(reason)));
      configChecked = true;
      const unknown = unknownConfigKeyWarnings(Object.keys(props).filter((key) => !ENGINE_INPUTS.has(key)), source);
      for (const message of unknown) await warn(req.getUrn(), message);
      return res;
    }),
    diffConfig: unary(async (req: provproto.DiffRequest) => {
      // The connection is read per operation: a config change replaces nothing and needs no provider diff.
      const same = isDeepStrictEqual(settingsOf(unwrap(req.getOldInputs()).props), settingsOf(unwrap(req.getNews()).props));
      return new provproto.DiffResponse().setChanges(same ? provproto.DiffResponse.DiffChanges.DIFF_NONE : provproto.DiffResponse.DiffChanges.DIFF_SOME);
    }),
    configure: unary(async (req: provproto.ConfigureRequest) => {
      const args = req.getArgs();
      const config = args ? unwrap(args) : undefined;
      if (config && configChecked) {
        if (secretSettings.some((k) => Array.isArray(config.props[k]))) {
          // This run's CheckConfig answer: a held setting whose list the engine left plain is in plaintext in the stack's config.
          const plaintext = plaintextApiKeys(released(config.props, secretSettings), sealedNames(args));
          if (plaintext.length) await warn(req.getUrn() ?? "", plaintextKeysWarning(plaintext));
        } else {
          // The stack's config as given, not CheckConfig's answer, which the engine also stores in the state: `pulumi
          // import` does so (pkg/resource/deploy/import.go, registerProviders). Refused before a key in plaintext reaches the state.
          const plaintext = plaintextApiKeys(config.props, config.secretNames);
          if (plaintext.length) throw new Error(plaintextKeysMessage(plaintext));
        }
      }
      const props = config ? released(config.props, secretSettings) : Object.fromEntries([...req.getVariablesMap().entries()].map(([k, v]) => [k.replace(/^svc:(config:)?/, ""), v]));
      configuredFromState = !configChecked;
      await ops.configure(configSource(props));
      return new provproto.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(true);
    }),

    // The schema's functions; their answers hold no secret (scripts/schema.ts refuses an Info type with a secret field).
    invoke: unary(async (req: provproto.InvokeRequest) => {
      const { props } = unwrap(req.getArgs());
      return new provproto.InvokeResponse().setReturn(wrap(await ops.invoke(req.getTok(), props), []));
    }),

    check: unary(async (req: provproto.CheckRequest) => {
      const token = typeOf(req);
      const olds = unwrap(req.getOlds());
      const news = unwrap(req.getNews());
      const { inputs, failures } = await ops.check(token, olds.props, news.props, news.secretNames, req.getUrn());
      const res = new provproto.CheckResponse().setInputs(wrap(inputs, secretInputs(token, news.secretNames)));
      res.setFailuresList(failures.map((f) => checkFailure(f, news.props, news.secretNames)));
      return res;
    }),
    diff: unary(async (req: provproto.DiffRequest) => {
      const olds = unwrap(req.getOlds());
      const news = unwrap(req.getNews());
      const token = typeOf(req);
      const d = await ops.diff(token, req.getId(), olds.props, news.props, news.secretNames);
      const res = new provproto.DiffResponse().setChanges(d.changes ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE);
      res.setReplacesList(d.replaces);
      res.setDeletebeforereplace(d.deleteBeforeReplace);
      // The provider's own field diff, detailed: without it the engine compares the stored outputs with the
      // new inputs itself (listing every output-only key as a change) and ignores replaceOnChanges.
      res.setDiffsList(d.diffs).setHasdetaileddiff(true);
      const oldInputs = unwrap(req.getOldInputs()).props;
      // The change is judged against the stored outputs: where they moved away from the stored inputs (drift the
      // service's answer to another change brought in), the engine must show the outputs' value, not the inputs'.
      // The field's own equality counts too: QuotaLimits' stored inputs hold the declared figures, its outputs all of them.
      const shownFromInputs = (key: string) => (key in news.props || key in oldInputs) && (isDeepStrictEqual(oldInputs[key], olds.props[key]) || ops.fieldAgrees(token, key, oldInputs[key], olds.props[key]));
      for (const key of d.diffs) res.getDetaileddiffMap().set(key, propertyDiff(olds.props[key], news.props[key], d.replaces.includes(key), shownFromInputs(key)));
      return res;
    }),
    create: unary(async (req: provproto.CreateRequest) => {
      const token = typeOf(req);
      const inputs = unwrap(req.getProperties());
      const secret = secretOutputs(token, inputs.secretNames);
      // Preview: nothing is made; the inputs stand for the outputs, unknowns as they are.
      if (req.getPreview()) return new provproto.CreateResponse().setProperties(wrap(inputs.props, secret));
      const r = await ops.create(token, inputs.props, inputs.secretNames, req.getUrn());
      return new provproto.CreateResponse().setId(r.id).setProperties(wrap(r.outputs, secret));
    }, (req) => secretOutputs(typeOf(req), unwrap(req.getProperties()).secretNames)),
    read: unary(async (req: provproto.ReadRequest) => {
      const token = typeOf(req);
      // The state's outputs hold all the provider needs, write-only values as last applied; an import has none.
      const state = unwrap(req.getProperties());
      const importing = Object.keys(state.props).length === 0;
      const secretNames = state.secretNames;
      // An import names its object by id alone: one reachable only through a profile is named `profile:<name>/<id>`,
      // read with that profile's connection and imported with `profile: <name>` under its own id.
      const { id, profile } = importing ? importTarget(req.getId()) : { id: req.getId(), profile: undefined };
      const r = await ops.read(token, id, profile === undefined ? state.props : { profile }, secretNames).catch((err: unknown) => {
        const missing = importing && configuredFromState ? ops.missingSettingOf(err) : undefined;
        throw missing ? new Error(staleImportConfigMessage(missing)) : err;
      });
      if (!r) return new provproto.ReadResponse();
      if (importing) {
        const unknowable = ops.writeOnlyInputs(token, r.outputs);
        // What the read learnt of them (a custom header's name, never its value) is no value a program could declare:
        // the state holds none, as for a resource that never set them, so the generated code previews with no change.
        for (const { name } of unknowable) {
          delete r.inputs[name];
          r.outputs[name] = null;
        }
        // No warning for a value the object does not have (an endpoint without custom headers).
        const message = importWarning(unknowable.filter((f) => f.held), new Set(secretIn(schema.resources[token]?.inputProperties)));
        if (message) await warn(req.getUrn(), message);
      }
      const res = new provproto.ReadResponse().setId(r.id).setProperties(wrap(r.outputs, secretOutputs(token, secretNames)));
      return res.setInputs(wrap(r.inputs, secretInputs(token, secretNames)));
    }),
    update: unary(async (req: provproto.UpdateRequest) => {
      const token = typeOf(req);
      const olds = unwrap(req.getOlds());
      const news = unwrap(req.getNews());
      const secret = secretOutputs(token, [...olds.secretNames, ...news.secretNames]);
      if (req.getPreview()) return new provproto.UpdateResponse().setProperties(wrap({ ...olds.props, ...news.props }, secret));
      const outputs = await ops.update(token, req.getId(), olds.props, news.props, news.secretNames);
      return new provproto.UpdateResponse().setProperties(wrap(outputs, secret));
    }, (req) => secretOutputs(typeOf(req), [...unwrap(req.getOlds()).secretNames, ...unwrap(req.getNews()).secretNames])),
    delete: unary(async (req: provproto.DeleteRequest) => {
      const state = unwrap(req.getProperties());
      await ops.remove(typeOf(req), req.getId(), state.props, state.secretNames);
      return new emptyproto.Empty();
    }),
  } as Partial<provrpc.IResourceProviderServer> as provrpc.IResourceProviderServer;
}

/** A shown value longer than this is cut (a 5 MB URL once printed 10 MB). */
const SHOWN_TEXT = 80;

/**
 * A check failure as the engine shows it. The engine prints a failure's property with the value of the top-level
 * input of that name, in Go's notation and whole (`property limits.vms value {<nil>}` for a nested one; `property
 * subscriptions value {[{map[eventType:{a.e0}]} ...` for a list): so the property is said in the reason instead, with
 * its own value short (or `[secret]` inside a secret input, or `missing`), wherever that print would mislead or flood:
 * a nested property, an object, a list, a missing value, a long text. The engine names the resource.
 */
function checkFailure(f: CheckFailure, inputs: Record<string, unknown>, secretNames: readonly string[]): provproto.CheckFailure {
  const path = propertyPath(f.property);
  const value = path.reduce<unknown>((v, seg) => (v && typeof v === "object" ? (v as Record<string, unknown>)[seg] : undefined), inputs);
  const scalar = typeof value === "number" || typeof value === "boolean" || (typeof value === "string" && value.length <= SHOWN_TEXT);
  if (path.length === 0 || (path.length === 1 && scalar)) return new provproto.CheckFailure().setProperty(f.property).setReason(f.reason);
  const text = secretNames.includes(String(path[0]))
    ? " is [secret]"
    : value === undefined || value === null
      ? " is missing"
      : scalar
        ? ` is ${JSON.stringify(value)}`
        : typeof value === "string"
          ? ` is ${JSON.stringify(value.slice(0, SHOWN_TEXT))}... (${value.length} characters)`
          : "";
  return new provproto.CheckFailure().setReason(`property ${f.property}${text}: ${f.reason}`);
}

/** The segments of a property path as the provider writes it (`limits.vms`, `subscriptions[0].eventType`, `customHeaders["X-A"]`). */
function propertyPath(property: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const m of property.matchAll(/(?:^|\.)([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) segments.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string)));
  return segments;
}

const absent = (v: unknown) => v === undefined || v === null;

/** One changed field as the engine shows it: added, deleted or updated (replacing or not), by its old and new values. */
function propertyDiff(old: unknown, now: unknown, replaces: boolean, inputDiff: boolean): provproto.PropertyDiff {
  const K = provproto.PropertyDiff.Kind;
  const kind = absent(old) && !absent(now) ? (replaces ? K.ADD_REPLACE : K.ADD) : absent(now) && !absent(old) ? (replaces ? K.DELETE_REPLACE : K.DELETE) : replaces ? K.UPDATE_REPLACE : K.UPDATE;
  return new provproto.PropertyDiff().setKind(kind).setInputdiff(inputDiff);
}

/** The object an import id names: `profile:<name>/<id>` for one of a named profile, else the id as it is. */
function importTarget(importId: string): { id: string; profile?: string } {
  const named = /^profile:([^/]+)\/(.+)$/s.exec(importId);
  return named ? { id: named[2]!, profile: named[1]! } : { id: importId };
}

/** The provider's view of the stack config: each `svc:` key as text, as the dynamic front end's configure() gives it. */
function configSource(props: Props): (key: string) => string | undefined {
  return (key) => {
    const v = props[key];
    if (v === undefined || v === null) return undefined;
    return typeof v === "string" ? v : JSON.stringify(v);
  };
}

/** The provider's configuration with each setting CheckConfig held in a list (heldSecret) as itself: from CheckConfig's answer, the state, or the stack's config. */
const released = (props: Props, held: readonly string[]): Props =>
  Object.fromEntries(Object.entries(props).map(([k, v]) => [k, held.includes(k) && Array.isArray(v) && v.length === 1 ? v[0] : v]));

/** The reach record of the provider's stored inputs (an earlier release's has none). */
const recordOf = (props: Props): ReachRecord => {
  const record = props[REACH_RECORD_KEY];
  return record && typeof record === "object" && !Array.isArray(record) ? (record as ReachRecord) : {};
};

/** The name of the program's own provider resource a URN names; undefined for a default provider (`default`, `default_<version>`). */
function explicitProviderName(urn: string): string | undefined {
  const name = urn.split("::").pop() ?? "";
  return /^default(_|$)/.test(name) ? undefined : name;
}

/** The provider's inputs the engine itself may set, beside the stack's `svc:` keys. */
const ENGINE_INPUTS = new Set(["version", "pluginDownloadURL"]);

/** The API keys (`svc:webhooksApiKey`, `svc:profiles.<name>...`) the config holds in plaintext. */
const plaintextApiKeys = (props: Props, secretNames: readonly string[]) => apiKeysIn(configSource(Object.fromEntries(Object.entries(props).filter(([k]) => !secretNames.includes(k)))));

/** Why an API key set in plaintext is a risk even though the provider's state stores it encrypted, and the fix. */
function plaintextKeysWarning(keys: string[]): string {
  return `The stack's config holds ${listed(keys)} in plaintext (set without --secret): the provider stores ${keys.length > 1 ? "them" : "it"} encrypted, but Pulumi keeps the stack's config as given in the update history. Set ${keys.length > 1 ? "each key" : "the key"} as a secret: ${configSetCommand(keys[0]!, "<key>")}.`;
}

const listed = (names: string[]) => names.map((n) => `\`${n}\``).join(", ");

/** Why a provider configured with plaintext API keys is refused, and what to do: set them as secrets. */
function plaintextKeysMessage(keys: string[]): string {
  return (
    `The stack's config holds ${listed(keys)} in plaintext (set without --secret), and this command (\`pulumi import\`) would store the provider's configuration in the stack's state as the config gives it, the key${keys.length > 1 ? "s" : ""} in plaintext: ` +
    `Pulumi's import keeps the stack's config, not the provider's checked configuration, where \`pulumi up\` stores the keys as secrets. Nothing was imported. ` +
    `Set ${keys.length > 1 ? "each key" : "the key"} as a secret (${configSetCommand(keys[0]!, "<key>")}), then import again.`
  );
}

/**
 * A setting missing from the provider configuration an import read with, which is the one the stack's last update
 * stored (`configuredFromState`): a setting added to the stack's config since is not in it, and `pulumi up` stores it.
 */
function staleImportConfigMessage(setting: { what: string; configKey: string; envVar: string }): string {
  return (
    `Missing ${setting.what} in the provider configuration this import read with: \`pulumi import\` uses the stack's provider as its last update stored it, ` +
    `not the stack's config now, so a setting added since (\`${setting.configKey}\`) is not seen. Run \`pulumi up\` first (it stores the stack's config as it is now), then import again. ` +
    `If the stack's config lacks it too, set it (${configSetCommand(setting.configKey, "...")}) and run \`pulumi up\`, or set the environment variable ${setting.envVar} for the import.`
  );
}

/** What an import could not learn, and what the user does about each: set it (the next update writes it), or leave it out. */
function importWarning(unknowable: { name: string; createOnly: boolean }[], secret: Set<string>): string | undefined {
  const settable = unknowable.filter((f) => !f.createOnly).map((f) => f.name);
  const createOnly = unknowable.filter((f) => f.createOnly).map((f) => f.name);
  const parts: string[] = [];
  if (settable.length) {
    const secrets = settable.filter((n) => secret.has(n));
    parts.push(
      `Imported without ${listed(settable)}: the service never returns ${settable.length > 1 ? "these values" : "this value"}, so neither the state nor the generated code holds ${settable.length > 1 ? "them" : "it"}. ` +
        `To manage ${settable.length > 1 ? "them" : "it"}, set ${settable.length > 1 ? "them" : "it"} in the program${secrets.length ? ` (${listed(secrets)} from a secret)` : ""}: the next update writes ${settable.length > 1 ? "them" : "it"}. ` +
        `Do so before a \`pulumi refresh\`: a refresh reads what the object has, and the next update then writes what the program declares.`,
    );
  }
  if (createOnly.length)
    parts.push(`${listed(createOnly)}: taken on create only and never returned, so not imported; leave ${createOnly.length > 1 ? "them" : "it"} out of the program (setting ${createOnly.length > 1 ? "one" : "it"} replaces the object).`);
  return parts.length ? parts.join(" ") : undefined;
}
