import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../webhook-secret.js';
import { signMessage, WebhookSender } from './webhook-sender.js';

const message = {
  url: 'http://127.0.0.1:9/hook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3XnJp1Y5pL0=',
  messageId: 'msg_0123456789abcdef0123456789abcdef',
  payload: '{"type":"webhook.test","timestamp":"2026-11-26T09:00:00.000Z","data":{}}',
};

describe('WebhookSender', () => {
  let sut: WebhookSender;
  afterEach(() => sut.close());

  it('refuses a forbidden address literal without connecting', async () => {
    sut = new WebhookSender(1000, false);
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]:9/hook', 'http://[::ffff:10.0.0.1]/hook']) {
      await expect(sut.send({ ...message, url })).resolves.toEqual({
        delivered: false,
        status: null,
        reason: expect.stringMatching(/^forbidden address /),
      });
    }
  });

  it('reports a secret it cannot sign with as a failed attempt, never a throw', async () => {
    sut = new WebhookSender(1000, true);
    await expect(sut.send({ ...message, secret: 'whsec_x' })).resolves.toMatchObject({
      delivered: false,
      status: null,
      reason: expect.stringMatching(/^cannot sign/),
    });
  });

  it('reports a refused connection as a failed attempt without a status', async () => {
    sut = new WebhookSender(1000, true);
    await expect(sut.send(message)).resolves.toMatchObject({ delivered: false, status: null });
  });
});

describe('signMessage', () => {
  it("signs as standardwebhooks' Webhook#sign does, and its verify accepts the signature", () => {
    for (let i = 0; i < 20; i++) {
      const secret = newSigningSecret();
      const at = new Date(Date.now() - i * 1000);
      const payload = JSON.stringify({
        type: 'link.created',
        timestamp: at.toISOString(),
        data: { code: `c${i}`, n: 'é✓' },
      });
      const timestamp = Math.floor(at.getTime() / 1000);
      const sut = signMessage(secret, message.messageId, timestamp, payload);
      expect(sut).toBe(new Webhook(secret).sign(message.messageId, at, payload));
      const headers = {
        'webhook-id': message.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sut,
      };
      expect(new Webhook(secret).verify(payload, headers)).toEqual(JSON.parse(payload));
    }
  });

  it('refuses a secret without a key', () => {
    expect(() => signMessage('whsec_', message.messageId, 1, '{}')).toThrow();
    expect(() => signMessage('nothing', message.messageId, 1, '{}')).toThrow();
  });
});
