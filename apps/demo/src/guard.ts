// Who may talk to the demo server. It listens on 127.0.0.1 only, but a page on any site can still
// reach it through the visitor's browser: a cross-site POST with `Content-Type: text/plain` needs
// no preflight, and a DNS-rebinding name (evil.example resolving to 127.0.0.1) makes the browser
// treat the server as that site's own and read its answers. So every request must name the server
// as its Host, and a request that changes state must come from the server's own pages.
import type { IncomingMessage } from 'node:http'

/** The Host values that name the server listening on 127.0.0.1:`port`. */
export function allowedHosts(port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost']
  return new Set([...names.map((name) => `${name}:${port}`), ...(port === 80 ? names : [])])
}

/** Whether the request's Host header names this server (anything else is a rebinding or a misdirected request). */
export function hostAllowed(req: IncomingMessage, hosts: ReadonlySet<string>): boolean {
  const host = req.headers.host
  return host !== undefined && hosts.has(host.toLowerCase())
}

/**
 * Whether a state-changing request comes from the server's own origin: `Sec-Fetch-Site:
 * same-origin` when the browser sends it, else an `Origin` equal to `http://<Host>`. A request
 * with neither (not from a browser that would carry a cross-site page's request) is refused too:
 * curl and scripts add `-H 'Origin: http://127.0.0.1:3000'`.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site']
  if (site !== undefined) return site === 'same-origin'
  const origin = req.headers.origin
  return origin !== undefined && origin === `http://${req.headers.host ?? ''}`
}
