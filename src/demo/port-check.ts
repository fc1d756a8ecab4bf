import { createServer } from 'node:net';

/** True when nothing listens on `port` of `host`: checked before the demo's minute of backfill. */
export async function isPortFree(port: number, host = '0.0.0.0'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
