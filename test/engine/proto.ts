// The generated gRPC stubs shipped inside @pulumi/pulumi (the same ones the SDK,
// the dynamic-provider plugin and the policy server use), plus promise helpers.
// Using the SDK's own stubs keeps us on exactly the protocol version 3.248 speaks.

import * as grpc from "@grpc/grpc-js";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as resrpc from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as analyzerrpc from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as analyzerproto from "@pulumi/pulumi/proto/analyzer_pb";
import * as pluginproto from "@pulumi/pulumi/proto/plugin_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import type { Json, PropertyMap } from "../support/values";

export {
  grpc,
  structproto,
  emptyproto,
  resrpc,
  resproto,
  enginerpc,
  engineproto,
  provrpc,
  provproto,
  analyzerrpc,
  analyzerproto,
  pluginproto,
  statusproto,
};

export function toStruct(m: PropertyMap): structproto.Struct {
  // Struct.fromJavaScript rejects undefined; our maps are JSON already.
  return structproto.Struct.fromJavaScript(m as Record<string, structproto.JavaScriptValue>);
}

export function fromStruct(s: structproto.Struct | undefined): PropertyMap {
  return s ? (s.toJavaScript() as PropertyMap) : {};
}

export function fromValue(v: structproto.Value | undefined): Json {
  return v ? (v.toJavaScript() as Json) : null;
}

/** A gRPC error with a status code, the shape grpc-js callbacks accept. */
export function grpcError(code: grpc.status, message: string): grpc.ServiceError {
  const e = new Error(message) as grpc.ServiceError;
  e.code = code;
  e.details = message;
  e.metadata = new grpc.Metadata();
  return e;
}

/** Promise of a unary call's response: `unary<Res>((cb) => client.method(req, cb))`. */
export function unary<Res>(call: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    call((err, res) => (err ? reject(err) : resolve(res)));
  });
}
