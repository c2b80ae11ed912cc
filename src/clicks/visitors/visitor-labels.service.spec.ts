import { Test } from '@nestjs/testing';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { VisitorLabels } from './visitor-labels.service.js';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

describe('VisitorLabels', () => {
  describe('behind a trusted proxy', () => {
    let sut: VisitorLabels;

    beforeEach(async () => {
      const module = await Test.createTestingModule({
        providers: [VisitorLabels, { provide: APP_CONFIG, useValue: { trustProxy: true } as AppConfig }],
      }).compile();
      sut = module.get(VisitorLabels);
    });

    it("labels a person's click by the first X-Forwarded-For entry's country and the user agent", () => {
      expect(
        sut.label({ userAgent: IPHONE, forwardedFor: '193.0.6.139, 10.0.0.1', remoteAddress: '10.0.0.2' }),
      ).toEqual({ bot: false, country: 'NL', device: 'mobile', browser: 'Safari', os: 'iOS' });
    });

    it("falls back to the socket's address when the header has none", () => {
      expect(sut.label({ userAgent: IPHONE, forwardedFor: 'garbage', remoteAddress: '::ffff:8.8.8.8' })).toMatchObject({
        country: 'US',
      });
      expect(sut.label({ userAgent: IPHONE, remoteAddress: '8.8.8.8' })).toMatchObject({ country: 'US' });
    });

    it('labels a click with no address ZZ', () => {
      expect(sut.label({ userAgent: IPHONE })).toMatchObject({ bot: false, country: 'ZZ' });
      expect(sut.label({ userAgent: IPHONE, remoteAddress: '127.0.0.1' })).toMatchObject({ country: 'ZZ' });
    });

    it("gives a bot's click the bot label only", () => {
      expect(sut.label({ userAgent: 'curl/8.5.0', forwardedFor: '8.8.8.8' })).toEqual({ bot: true });
      expect(sut.label({ forwardedFor: '8.8.8.8' })).toEqual({ bot: true });
      expect(sut.label({})).toEqual({ bot: true });
    });

    it('carries neither the address nor the user agent', () => {
      const label = JSON.stringify(
        sut.label({ userAgent: IPHONE, forwardedFor: '193.0.6.139', remoteAddress: '203.0.113.9' }),
      );
      for (const fact of ['193.0.6.139', '203.0.113.9', 'Mozilla', 'iPhone OS', '18_1']) {
        expect(label).not.toContain(fact);
      }
    });

    it('never throws on hostile facts', () => {
      expect(
        sut.label({
          userAgent: `${IPHONE}\u0000`.repeat(1000),
          forwardedFor: Array.from({ length: 1000 }, () => 'x'.repeat(1000)),
          remoteAddress: '\uD800',
        }),
      ).toEqual({ bot: false, country: 'ZZ', device: 'mobile', browser: 'Safari', os: 'iOS' });
    });
  });

  describe('without a trusted proxy', () => {
    it("ignores X-Forwarded-For and takes the socket's address", () => {
      const sut = new VisitorLabels({ trustProxy: false });
      expect(sut.label({ userAgent: IPHONE, forwardedFor: '193.0.6.139', remoteAddress: '8.8.8.8' })).toMatchObject({
        country: 'US',
      });
    });
  });
});
