import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got. */
export interface ReceivedMessage {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body parsed, when it is JSON. */
  json: { type: string; timestamp: string; data: Record<string, unknown> };
  at: number;
}

/** How a receiver answers one request; the default answers 200. */
export type ReceiverBehaviour = (request: IncomingMessage, response: ServerResponse, received: ReceivedMessage) => void;

/**
 * A webhook receiver on the loopback interface, as a real one would be: it records every request
 * and answers as `behaviour` says.
 */
export class WebhookReceiver {
  readonly received: ReceivedMessage[] = [];
  behaviour: ReceiverBehaviour = (_request, response) => response.end('ok');
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: ReceivedMessage['json'];
        try {
          json = JSON.parse(body) as ReceivedMessage['json'];
        } catch {
          json = { type: '', timestamp: '', data: {} };
        }
        const message = { path: request.url ?? '', headers: request.headers, body, json, at: Date.now() };
        receiver.received.push(message);
        receiver.behaviour(request, response, message);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The receiver's URL for `path`. */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** What reached `path`. */
  at(path: string): ReceivedMessage[] {
    return this.received.filter((message) => message.path === path);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * What a receiver does with a message: `standardwebhooks`' own `verify` with the secret. Throws
 * when the signature, id or timestamp is wrong; returns the parsed body.
 */
export function verifyMessage(secret: string, message: ReceivedMessage): unknown {
  const headers = {
    'webhook-id': String(message.headers['webhook-id']),
    'webhook-timestamp': String(message.headers['webhook-timestamp']),
    'webhook-signature': String(message.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(message.body, headers);
}
