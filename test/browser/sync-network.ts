// The network between a browser profile and `fuzzbox serve` in the browser sync tests: an HTTP
// relay on its own loopback port that forwards everything as it is (CORS preflights included) and
// breaks the one request the test names, the way networks break: the connection dropped while the
// request's body is on its way, dropped after the server answered (the answer is lost), dropped
// in the middle of the answer, or the request delivered twice.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  /** the connection drops once `after` bytes of the request's body reached the server */
  | { kind: 'cut-request'; path: string; after: number }
  /** the server answers, the answer never arrives */
  | { kind: 'lose-answer'; path: string }
  /** the connection drops once `after` bytes of the answer's body arrived */
  | { kind: 'cut-answer'; path: string; after: number }
  /** the request reaches the server twice, one after the other; the second answer is delivered */
  | { kind: 'duplicate'; path: string };

interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Relay {
  /** `http://127.0.0.1:port/`: what the browser is given as the sync server */
  readonly url: string;
  /** false: every connection is dropped as it arrives, nothing reaches the server */
  online: boolean;
  /** method and path of each request that reached the relay, in order */
  readonly seen: string[];
  /** bodies' bytes of /sync/push requests and /sync/pull answers that were delivered */
  readonly bytes: { pushed: number; pulled: number };
  /** breaks the next request whose path ends with `fault.path` (after the faults injected before it); resolves once it has */
  inject(fault: Fault): Promise<void>;
  /** resolves once `count` answers to requests whose path ends with `path` were delivered */
  delivered(path: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(target: () => string): Promise<Relay> {
  const seen: string[] = [];
  const bytes = { pushed: 0, pulled: 0 };
  const deliveredByPath = new Map<string, number>();
  let waiting: Array<{ path: string; count: number; resolve(): void }> = [];
  let pending: Array<{ fault: Fault; resolve(): void }> = [];

  const forward = (incoming: IncomingMessage, body: Buffer, sendBytes = body.length) =>
    new Promise<Upstream>((resolve, reject) => {
      const headers = { ...incoming.headers, host: new URL(target()).host };
      const upstream = httpRequest(new URL(incoming.url!, target()), { method: incoming.method!, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      });
      upstream.on('error', reject);
      if (sendBytes < body.length) {
        // the request's start arrives, then the line goes dead
        upstream.write(body.subarray(0, sendBytes), () => setTimeout(() => upstream.destroy(new Error('cut (test)')), 50));
      } else {
        upstream.end(body);
      }
    });

  const answer = (outgoing: ServerResponse, upstream: Upstream, cutAfter?: number) => {
    const headers = { ...upstream.headers, 'content-length': String(upstream.body.length) };
    delete headers['transfer-encoding'];
    delete headers.connection;
    outgoing.writeHead(upstream.status, headers);
    if (cutAfter === undefined) {
      outgoing.end(upstream.body);
    } else {
      outgoing.write(upstream.body.subarray(0, cutAfter), () => outgoing.socket?.destroy());
    }
  };

  const server = createServer((incoming, outgoing) => {
    if (!relay.online) {
      incoming.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const path = new URL(incoming.url!, 'http://relay').pathname;
        seen.push(`${incoming.method} ${path}`);
        const body = Buffer.concat(chunks);
        const fault = incoming.method === 'OPTIONS' ? undefined : pending.find((candidate) => path.endsWith(candidate.fault.path));
        pending = pending.filter((candidate) => candidate !== fault);
        try {
          let upstream: Upstream;
          let cutAfter: number | undefined;
          switch (fault?.fault.kind) {
            case 'cut-request':
              await forward(incoming, body, fault.fault.after).catch(() => undefined);
              outgoing.socket?.destroy();
              return;
            case 'lose-answer':
              await forward(incoming, body);
              outgoing.socket?.destroy();
              return;
            case 'duplicate':
              await forward(incoming, body);
              upstream = await forward(incoming, body);
              break;
            case 'cut-answer':
              upstream = await forward(incoming, body);
              cutAfter = Math.min(fault.fault.after, upstream.body.length - 1);
              break;
            default:
              upstream = await forward(incoming, body);
          }
          answer(outgoing, upstream, cutAfter);
          if (cutAfter !== undefined) return;
          if (path.endsWith('/sync/push') && incoming.method === 'POST') bytes.pushed += body.length;
          if (path.endsWith('/sync/pull')) bytes.pulled += upstream.body.length;
          const count = (deliveredByPath.get(path) ?? 0) + (incoming.method === 'OPTIONS' ? 0 : 1);
          deliveredByPath.set(path, count);
          waiting = waiting.filter((wait) => {
            const done = path.endsWith(wait.path) && count >= wait.count;
            if (done) wait.resolve();
            return !done;
          });
        } catch {
          // the server is down or went away mid-request: so does the connection
          outgoing.socket?.destroy();
        } finally {
          fault?.resolve();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const relay: Relay = {
    url: `http://127.0.0.1:${port}/`,
    online: true,
    seen,
    bytes,
    inject: (fault) => new Promise<void>((resolve) => pending.push({ fault, resolve })),
    delivered: (path, count) =>
      new Promise<void>((resolve) => {
        const done = [...deliveredByPath].some(([seenPath, n]) => seenPath.endsWith(path) && n >= count);
        if (done) resolve();
        else waiting.push({ path, count, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return relay;
}
