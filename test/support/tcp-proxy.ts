/**
 * A TCP proxy in front of a shared service (Postgres, Redis) that a test can take down
 * and bring back, to play an outage without disturbing the real service other tests
 * use: `down()` resets every open connection (TCP RST, as a server restart does) and
 * stops listening, so new connections are refused until `up()`.
 */
import net from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The port it listens on (127.0.0.1), the same across down/up. */
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Resets every open connection and refuses new ones. */
  down(): Promise<void>;
  /** Accepts connections again. */
  up(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** Starts a proxy to `target` on a free port of 127.0.0.1. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const track = (s: net.Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect(target.port, target.host);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  const down = async (): Promise<void> => {
    const closed = stopListening();
    for (const s of sockets) s.resetAndDestroy();
    await closed;
  };
  return {
    port,
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    down,
    async up() {
      if (!server.listening) await listen(port);
    },
    close: down,
  };
}
