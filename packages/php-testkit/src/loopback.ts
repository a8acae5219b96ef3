/** Loopback addresses for tests: a server's origin once it listens, and a port nothing listens on. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on a free loopback port; resolves to its origin, e.g. http://127.0.0.1:41234. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The origin of a loopback port that was free a moment ago and is closed now: connections are refused. */
export async function closedLoopbackUrl(): Promise<string> {
  const server = createServer();
  const url = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}
