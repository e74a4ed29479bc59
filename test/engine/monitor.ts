// The engine's side of the program protocol: the ResourceMonitor and Engine gRPC
// services, served on one loopback port (the program is given it as both
// --monitor and --engine). Requests are handled as they arrive, concurrently; the
// SDK itself waits for a resource's dependencies before registering it on `up`.

import { grpc, resrpc, resproto, enginerpc, engineproto, emptyproto, provproto, toStruct, fromStruct, grpcError } from "./proto";
import { errorMessage, type Deployment } from "./deployment";
import type { Diagnostic, ResourceGoal, Severity } from "../support/run-types";

/** Features we implement, answered truthfully to SupportsFeature. */
const SUPPORTED_FEATURES = new Set(["secrets", "deletedWith"]);

export interface MonitorHandlers {
  deployment: () => Deployment;
  diagnostics: Diagnostic[];
}

export class MonitorServer {
  private server: grpc.Server | undefined;
  rootUrn = "";
  /** Set by SignalAndWaitForShutdown: the program finished registering. */
  programSignalledShutdown = false;

  constructor(private readonly h: MonitorHandlers) {}

  async start(): Promise<string> {
    const server = new grpc.Server();
    server.addService(resrpc.ResourceMonitorService, this.monitorImpl());
    server.addService(enginerpc.EngineService, this.engineImpl());
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    this.server = server;
    return `127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }

  private monitorImpl(): grpc.UntypedServiceImplementation {
    const unimplemented = (name: string) => (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      cb(grpcError(grpc.status.UNIMPLEMENTED, `${name} is not implemented by the engine stand-in`));
    return {
      supportsFeature: (call: grpc.ServerUnaryCall<resproto.SupportsFeatureRequest, unknown>, cb: grpc.sendUnaryData<resproto.SupportsFeatureResponse>) => {
        const res = new resproto.SupportsFeatureResponse();
        res.setHassupport(SUPPORTED_FEATURES.has(call.request.getId()));
        cb(null, res);
      },
      registerResource: (call: grpc.ServerUnaryCall<resproto.RegisterResourceRequest, unknown>, cb: grpc.sendUnaryData<resproto.RegisterResourceResponse>) => {
        const req = call.request;
        if (req.getImportid()) {
          cb(grpcError(grpc.status.INVALID_ARGUMENT, `the import option does not work for dynamic resources (pulumi/pulumi#16175): ${req.getName()}`));
          return;
        }
        if (req.getRemote()) {
          cb(grpcError(grpc.status.UNIMPLEMENTED, `multi-language components are not supported by the engine stand-in: ${req.getType()}`));
          return;
        }
        const goal: ResourceGoal = {
          type: req.getType(),
          name: req.getName(),
          parent: req.getParent(),
          custom: req.getCustom(),
          props: fromStruct(req.getObject()),
          dependencies: req.getDependenciesList(),
          propertyDependencies: propertyDependenciesOf(req),
          provider: req.getProvider(),
          protect: req.hasProtect() ? req.getProtect() : undefined,
          retainOnDelete: req.hasRetainondelete() ? req.getRetainondelete() : undefined,
          deleteBeforeReplace: req.getDeletebeforereplacedefined() || req.getDeletebeforereplace() ? req.getDeletebeforereplace() : undefined,
          ignoreChanges: req.getIgnorechangesList(),
          replaceOnChanges: req.getReplaceonchangesList(),
          additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
          deletedWith: req.getDeletedwith() || undefined,
          // Without the aliasSpecs feature the SDK sends the old names as full URNs.
          aliases: req.getAliasurnsList(),
        };
        this.h
          .deployment()
          .register(goal)
          .then((r) => {
            const res = new resproto.RegisterResourceResponse();
            res.setUrn(r.urn);
            res.setId(r.id);
            res.setObject(toStruct(r.outputs));
            res.setStable(r.stable ?? false);
            res.setResult(resproto.Result.SUCCESS);
            cb(null, res);
          })
          .catch((e: unknown) => cb(grpcError(grpc.status.UNKNOWN, errorMessage(e))));
      },
      readResource: (call: grpc.ServerUnaryCall<resproto.ReadResourceRequest, unknown>, cb: grpc.sendUnaryData<resproto.ReadResourceResponse>) => {
        const req = call.request;
        const goal: ResourceGoal = {
          type: req.getType(),
          name: req.getName(),
          parent: req.getParent(),
          custom: true,
          props: fromStruct(req.getProperties()),
          dependencies: req.getDependenciesList(),
          provider: req.getProvider(),
          ignoreChanges: [],
          replaceOnChanges: [],
          additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
          readId: req.getId(),
        };
        this.h
          .deployment()
          .read(goal)
          .then((r) => {
            const res = new resproto.ReadResourceResponse();
            res.setUrn(r.urn);
            res.setProperties(toStruct(r.outputs));
            cb(null, res);
          })
          .catch((e: unknown) => cb(grpcError(grpc.status.UNKNOWN, errorMessage(e))));
      },
      registerResourceOutputs: (call: grpc.ServerUnaryCall<resproto.RegisterResourceOutputsRequest, unknown>, cb: grpc.sendUnaryData<emptyproto.Empty>) => {
        this.h.deployment().registerOutputs(call.request.getUrn(), fromStruct(call.request.getOutputs()));
        cb(null, new emptyproto.Empty());
      },
      signalAndWaitForShutdown: (_call: unknown, cb: grpc.sendUnaryData<emptyproto.Empty>) => {
        // No resource hooks here, so there is nothing to wait for.
        this.programSignalledShutdown = true;
        cb(null, new emptyproto.Empty());
      },
      invoke: (call: grpc.ServerUnaryCall<resproto.ResourceInvokeRequest, unknown>, cb: grpc.sendUnaryData<provproto.InvokeResponse>) =>
        cb(grpcError(grpc.status.UNIMPLEMENTED, `Invoke(${call.request.getTok()}) is not implemented by the engine stand-in`)),
      getDeploymentInfo: unimplemented("GetDeploymentInfo"),
      call: unimplemented("Call"),
      registerStackTransform: unimplemented("RegisterStackTransform"),
      registerStackInvokeTransform: unimplemented("RegisterStackInvokeTransform"),
      registerResourceHook: unimplemented("RegisterResourceHook"),
      registerErrorHook: unimplemented("RegisterErrorHook"),
      registerPackage: unimplemented("RegisterPackage"),
    };
  }

  private engineImpl(): grpc.UntypedServiceImplementation {
    const S = engineproto.LogSeverity;
    const severities: Record<number, Severity> = { [S.DEBUG]: "debug", [S.INFO]: "info", [S.WARNING]: "warning", [S.ERROR]: "error" };
    return {
      log: (call: grpc.ServerUnaryCall<engineproto.LogRequest, unknown>, cb: grpc.sendUnaryData<emptyproto.Empty>) => {
        const req = call.request;
        const severity = severities[req.getSeverity()] ?? "info";
        if (severity !== "debug" && !req.getEphemeral()) {
          // cmd/run colours stack traces with util.inspect; the CLI renders them, we store text.
          this.h.diagnostics.push({ severity, message: stripAnsi(req.getMessage()), urn: req.getUrn() || undefined, source: "program" });
        }
        cb(null, new emptyproto.Empty());
      },
      getRootResource: (_call: unknown, cb: grpc.sendUnaryData<engineproto.GetRootResourceResponse>) => {
        const res = new engineproto.GetRootResourceResponse();
        res.setUrn(this.rootUrn);
        cb(null, res);
      },
      setRootResource: (call: grpc.ServerUnaryCall<engineproto.SetRootResourceRequest, unknown>, cb: grpc.sendUnaryData<engineproto.SetRootResourceResponse>) => {
        this.rootUrn = call.request.getUrn();
        cb(null, new engineproto.SetRootResourceResponse());
      },
      requirePulumiVersion: (_call: unknown, cb: grpc.sendUnaryData<engineproto.RequirePulumiVersionResponse>) =>
        cb(null, new engineproto.RequirePulumiVersionResponse()),
      startDebugging: (_call: unknown, cb: grpc.sendUnaryData<emptyproto.Empty>) =>
        cb(grpcError(grpc.status.UNIMPLEMENTED, "StartDebugging is not implemented by the engine stand-in")),
    };
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, "");
}

/** RegisterResourceRequest's property dependencies: input name → the URNs its value came from. */
function propertyDependenciesOf(req: resproto.RegisterResourceRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  req.getPropertydependenciesMap().forEach((deps, key) => (out[key] = deps.getUrnsList()));
  return out;
}
