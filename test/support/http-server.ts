// handle() behind a real Node `http` server on a free loopback port, through fuzzbox/node's
// request listener (@hono/node-server's adapter), for tests that must see what goes over the wire
// (raw header spelling, bodies on GET).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from '../../src/node/index.js';

export interface HttpServer {
  /** e.g. `http://127.0.0.1:40123/` */
  url: string;
  close(): Promise<void>;
}

export async function serveOverHttp(handle: (request: Request) => Promise<Response>): Promise<HttpServer> {
  const server = createServer(createRequestListener({ handle }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
