import { jest } from '@jest/globals';
// Oversized request bodies over real sockets: every client reads its 413, none sees a broken
// pipe; what a refused client still sends is drained within bounds; nothing else is disturbed.
import { connect, type Socket } from 'node:net';
import { DISCARD_LIMITS } from '../src/common/http/body-limits.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

// Hundreds of megabytes go over loopback in some tests: well within a minute alone, not always
// while other specs share the machine's two cores.
jest.setTimeout(180_000);

let testApp: TestApp;
let owner: TestAccount;

beforeAll(async () => {
  testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' });
  owner = await createAccountWithToken(testApp);
});
afterAll(() => testApp.close());

const MB = 1_000_000;

/** A JSON-looking body of `size` bytes (content is irrelevant: it is refused by size). */
function bodyOf(size: number): Uint8Array {
  return new Uint8Array(size).fill(0x20);
}

/** POSTs a body through Node's fetch (undici, as the SDK does); the outcome, never a throw. */
async function post(
  body: NonNullable<RequestInit['body']>,
  init: RequestInit = {},
): Promise<{ status: number; error?: string; failure?: string }> {
  try {
    const response = await fetch(`${testApp.baseUrl}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...owner.apiKey },
      body,
      ...init,
    });
    const text = await response.text();
    return { status: response.status, error: (JSON.parse(text) as { error?: string }).error };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { status: 0, failure: cause?.code ?? String(error) };
  }
}

describe('a fixed-length body over the limit', () => {
  it.each([
    [1.1 * MB, 30],
    [3 * MB, 30],
    [8 * MB, 30],
    [64 * MB, 10],
  ])('of %d bytes: the client reads 413 payload_too_large on every one of its tries (%d)', async (size, tries) => {
    const body = bodyOf(size);
    const outcomes = [];
    for (let i = 0; i < tries; i++) outcomes.push(await post(body));
    expect(outcomes).toEqual(Array.from({ length: tries }, () => ({ status: 413, error: 'payload_too_large' })));
  });

  it('says the limit in the problem', async () => {
    const response = await fetch(`${testApp.baseUrl}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...owner.apiKey },
      body: bodyOf(2 * MB),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toEqual({
      type: 'about:blank',
      title: 'Payload Too Large',
      status: 413,
      error: 'payload_too_large',
      detail: 'The request body exceeds 1 MiB',
    });
  });
});

describe('a chunked body over the limit (no Content-Length)', () => {
  it('of 2.6 MB: the client reads 413 on every one of 20 tries', async () => {
    const chunk = bodyOf(64 * 1024);
    const outcomes = [];
    for (let i = 0; i < 20; i++) {
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 2.6 * MB) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      outcomes.push(await post(stream as NonNullable<RequestInit['body']>, { duplex: 'half' }));
    }
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => ({ status: 413, error: 'payload_too_large' })));
  });
});

/** A raw HTTP/1.1 exchange: what came back, and whether and when the server closed. */
class RawConnection {
  readonly socket: Socket;
  received = '';
  closedAt?: number;
  /** When the first byte of an answer arrived: the server's time bounds count from its refusal. */
  answeredAt?: number;

  constructor() {
    const { hostname, port } = new URL(testApp.baseUrl);
    this.socket = connect(Number(port), hostname);
    this.socket.setEncoding('latin1');
    this.socket.on('data', (text: string) => {
      this.answeredAt ??= Date.now();
      this.received += text;
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => (this.closedAt = Date.now()));
  }

  write(text: string | Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(text, () => resolve());
    });
  }

  async until(predicate: () => boolean, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; received: ${this.received.slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  get statusLines(): string[] {
    return this.received.match(/HTTP\/1\.1 \d{3}[^\r]*/g) ?? [];
  }
}

function head(lines: Record<string, string | number>): string {
  const fields = Object.entries({
    host: '127.0.0.1',
    'content-type': 'application/json',
    'x-api-key': owner.token,
    ...lines,
  })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  return `POST /api/links HTTP/1.1\r\n${fields}\r\n\r\n`;
}

describe('Expect: 100-continue', () => {
  it('with a Content-Length over the limit gets the 413 at once, never 100 Continue', async () => {
    const connection = new RawConnection();
    await connection.write(head({ 'content-length': 8 * MB, expect: '100-continue' }));
    await connection.until(() => connection.statusLines.length > 0);
    expect(connection.statusLines).toEqual(['HTTP/1.1 413 Payload Too Large']);
    expect(connection.received).toContain('"error":"payload_too_large"');
    connection.socket.destroy();
  });

  it('with a body within the limit gets 100 Continue, then the link', async () => {
    const body = JSON.stringify({ url: 'https://example.com/continue' });
    const connection = new RawConnection();
    await connection.write(head({ 'content-length': Buffer.byteLength(body), expect: '100-continue' }));
    await connection.until(() => connection.statusLines.length > 0);
    expect(connection.statusLines).toEqual(['HTTP/1.1 100 Continue']);
    await connection.write(body);
    await connection.until(() => connection.statusLines.length > 1);
    expect(connection.statusLines).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created']);
    connection.socket.destroy();
  });
});

describe('what a refused client still sends', () => {
  it('is drained, and the connection serves the next request once the body has gone by', async () => {
    const connection = new RawConnection();
    await connection.write(head({ 'content-length': 3 * MB }));
    await connection.write(bodyOf(3 * MB));
    const next = JSON.stringify({ url: 'https://example.com/after-413' });
    await connection.write(head({ 'content-length': Buffer.byteLength(next) }) + next);
    await connection.until(() => connection.statusLines.length === 2);
    expect(connection.statusLines).toEqual(['HTTP/1.1 413 Payload Too Large', 'HTTP/1.1 201 Created']);
    connection.socket.destroy();
  });

  it(
    'is cut off within the time bound when a client announces 1 GB and trickles it',
    async () => {
      const connection = new RawConnection();
      await connection.write(head({ 'content-length': 1_000_000_000 }));
      const trickle = setInterval(() => void connection.write(bodyOf(1024)), 100);
      try {
        await connection.until(() => connection.closedAt !== undefined, DISCARD_LIMITS.maxMs + 5_000);
      } finally {
        clearInterval(trickle);
      }
      expect(connection.statusLines).toEqual(['HTTP/1.1 413 Payload Too Large']);
      // Counted from the 413, not from the connection: on a loaded machine the refusal itself can
      // come a moment late, and that is not the discarding's time.
      expect(connection.closedAt! - connection.answeredAt!).toBeLessThan(DISCARD_LIMITS.maxMs + 2_000);
    },
    DISCARD_LIMITS.maxMs + 15_000,
  );

  it('is cut off past the byte bound', async () => {
    const connection = new RawConnection();
    await connection.write(head({ 'content-length': 1_000_000_000 }));
    const chunk = bodyOf(4 * MB);
    let written = 0;
    while (!connection.socket.destroyed && written < 2 * DISCARD_LIMITS.maxBytes) {
      await connection.write(chunk);
      written += chunk.length;
    }
    await connection.until(() => connection.closedAt !== undefined);
    expect(connection.statusLines).toEqual(['HTTP/1.1 413 Payload Too Large']);
    // The bound is checked every 50 ms, and the kernel buffers some of what was written: the
    // client gets a little past it, nowhere near twice.
    expect(written).toBeLessThan(DISCARD_LIMITS.maxBytes + 192 * 2 ** 20);
  });
});

describe('lying, vanishing and crowding clients', () => {
  it('a Content-Length shorter than the body: a clean 4xx for each part, no 500', async () => {
    const connection = new RawConnection();
    const body = JSON.stringify({ url: 'https://example.com/short-length' });
    await connection.write(head({ 'content-length': 10 }) + body);
    await connection.until(() => connection.closedAt !== undefined || connection.statusLines.length >= 2);
    expect(connection.statusLines.length).toBeGreaterThan(0);
    for (const line of connection.statusLines) expect(line).toMatch(/^HTTP\/1\.1 4\d\d /);
    connection.socket.destroy();
  });

  it('a Content-Length over the limit with a short body: 413, and the client may hang up', async () => {
    const connection = new RawConnection();
    await connection.write(head({ 'content-length': 5 * MB }) + '{"url":"https://example.com/"}');
    await connection.until(() => connection.statusLines.length > 0);
    expect(connection.statusLines).toEqual(['HTTP/1.1 413 Payload Too Large']);
    connection.socket.destroy();
    expect((await post(JSON.stringify({ url: 'https://example.com/still-up' }))).status).toBe(201);
  });

  it('a client that disconnects half-way through an oversized body disturbs nobody', async () => {
    for (let i = 0; i < 10; i++) {
      const connection = new RawConnection();
      await connection.write(head({ 'transfer-encoding': 'chunked' }));
      await connection.write(`${(512 * 1024).toString(16)}\r\n`);
      await connection.write(bodyOf(512 * 1024));
      connection.socket.destroy();
    }
    expect((await post(JSON.stringify({ url: 'https://example.com/after-hangups' }))).status).toBe(201);
  });

  it('many oversized uploads at once: each reads its 413, other requests keep being answered, memory stays flat', async () => {
    const health = async () => (await fetch(`${testApp.baseUrl}/health`)).status;
    global.gc?.();
    const before = process.memoryUsage().rss;
    // Raw senders write the same small chunk again and again, so the test's own memory does not
    // grow with the bodies: what grows would be the server's.
    const uploads = Array.from({ length: 20 }, async () => {
      const connection = new RawConnection();
      await connection.write(head({ 'content-length': 32 * MB }));
      const chunk = bodyOf(256 * 1024);
      for (let sent = 0; sent < 32 * MB && !connection.socket.destroyed; sent += chunk.length)
        await connection.write(chunk);
      await connection.until(() => connection.statusLines.length > 0);
      connection.socket.destroy();
      return connection.statusLines;
    });
    const healthDuring = await Promise.all(Array.from({ length: 10 }, health));
    const statusLines = await Promise.all(uploads);
    global.gc?.();
    const grownMiB = (process.memoryUsage().rss - before) / 2 ** 20;

    expect(statusLines).toEqual(Array.from({ length: 20 }, () => ['HTTP/1.1 413 Payload Too Large']));
    expect(healthDuring).toEqual(Array.from({ length: 10 }, () => 200));
    // 640 MB went by; buffering even one body per upload would show as hundreds of MiB.
    expect(grownMiB).toBeLessThan(64);
  });
});
