/**
 * One entry of the emulator's request log (request-log.ts). Its own file, free of
 * fastify's typings, so pulumi-svc/testing can publish it in typings that type-check
 * without esModuleInterop.
 */
export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  query: string;
  status: number;
  duration_ms: number;
  time: string;
  request_id: string;
  user_agent: string;
  /** API requests the emulator was handling when this one arrived, itself included. */
  in_flight: number;
}
