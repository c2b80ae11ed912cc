import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';

// A quiet, offline browser: nothing of its own reaches the network, so every request the test
// sees comes from the page.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The user agent of Chromium as a person runs it. Headless Chromium says `HeadlessChrome`, which
 * shortlink counts as a bot (clicks people can trust): specs that click as a person use this.
 */
export const PERSON_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/**
 * Starts Debian's Chromium through playwright-core, with a fresh temporary profile. Never
 * skipped: a missing browser is a broken machine setup, and must fail loudly.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}
