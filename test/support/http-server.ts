// handle() behind a real Node `http` server on a free loopback port, for tests that must see what
// goes over the wire (raw header spelling, bodies on GET). fuzzbox/node will take this job over.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spelledHeaderName } from '../../src/api/index.js';

export interface HttpServer {
  /** e.g. `http://127.0.0.1:40123/` */
  url: string;
  close(): Promise<void>;
}

async function toRequest(incoming: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, values] of Object.entries(incoming.headersDistinct)) for (const value of values ?? []) headers.append(name, value);
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  // a fetch Request cannot carry a body on GET or HEAD; the service ignores one there anyway
  const body = incoming.method === 'GET' || incoming.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(new URL(incoming.url ?? '/', origin), { method: incoming.method, headers, body });
}

export async function serveOverHttp(handle: (request: Request) => Promise<Response>): Promise<HttpServer> {
  const server = createServer(async (incoming, outgoing) => {
    const response = await handle(await toRequest(incoming, url));
    for (const [name, value] of response.headers) outgoing.setHeader(spelledHeaderName(name), value);
    outgoing.writeHead(response.status);
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
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
