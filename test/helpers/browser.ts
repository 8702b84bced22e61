import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium: browsers downloaded by Playwright cannot be fetched here. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Headless, no sandbox (containers), and nothing that calls out to the network on its own. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: FLAGS });

/** Says why a browser test is skipped, and how to enable it. */
export function noteIfNoChromium(what: string): void {
  if (!HAS_CHROMIUM)
    console.log(
      `skipped: ${what} needs Debian's chromium at ${CHROMIUM}; enable it with: apt-get install chromium`,
    );
}
