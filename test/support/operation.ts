/**
 * A new engine operation in this process (provider/engine/engine-operation.ts), as a new
 * plugin process would serve the engine's next step: whatever the calls before learnt
 * (ids held, keepers, checks' claims, cached reads, listings) is gone, and nothing else
 * is (settings, pacing, stats). Tests that play several operations in one process call
 * it between them, and before each test for a clean start.
 */
export { startOperation as newOperation } from "../../provider/engine/engine-operation";
