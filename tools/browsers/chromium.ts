/**
 * How every test and benchmark starts Chromium: Debian's /usr/bin/chromium (scripts/bootstrap.sh
 * installs it; test tools cannot download browsers here; CHROMIUM_PATH overrides), with the flags
 * this closed network needs (without them Chromium keeps trying to reach Google's hosts).
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
}
