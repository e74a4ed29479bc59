/**
 * Entry point of the svc-guardrails policy pack. The policy runtime
 * (`@pulumi/pulumi/cmd/run-policy-pack`) requires the pack directory, whose
 * package.json points `main` at the compiled form of this file
 * (dist/policy/index.js, built by the repository's `tsc`); constructing the
 * PolicyPack starts the analyzer gRPC server and prints its port.
 */
import { PolicyPack } from "@pulumi/policy";
import { PACK_NAME, packArgs } from "./pack";

new PolicyPack(PACK_NAME, packArgs);
