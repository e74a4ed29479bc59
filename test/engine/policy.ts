// Placeholder until the analyzer client lands.
import type { PolicyHooks } from "./deployment";
import type { ResourceState } from "./state";
import type { Diagnostic, PolicyViolation } from "./types";

export interface PolicyPackOptions {
  dir: string;
  engineAddress: string;
  env: NodeJS.ProcessEnv;
  configFile?: string;
  diagnostics: Diagnostic[];
}

export class PolicyPack {
  static async start(_opts: PolicyPackOptions): Promise<PolicyPack> {
    throw new Error("policy packs are not implemented yet");
  }
  hooks(): PolicyHooks {
    throw new Error("not implemented");
  }
  async analyzeStack(_resources: ResourceState[]): Promise<PolicyViolation[]> {
    return [];
  }
  async close(): Promise<void> {}
}
