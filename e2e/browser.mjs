// The headless Chromium every browser check here uses: Debian's Chromium with the flags this
// machine's closed network needs, and a fresh profile each time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A persistent context in a fresh profile (`prefix` names its folder), 1280 x 800 unless
 * `options.viewport` says otherwise. `close()` closes it and removes the profile.
 */
export async function launch(prefix, options = {}) {
  const profile = mkdtempSync(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    ...options,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}
