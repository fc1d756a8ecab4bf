/**
 * Checks that a TCP port is free before long work that will need it later (the demo
 * backfills for a minute before the ops server binds `OPS_PORT`).
 */
import { createServer } from 'node:net';

/** Resolves true when nothing listens on `port` of `host`. */
export async function isPortFree(port: number, host = '0.0.0.0'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
