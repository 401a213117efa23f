import dns, { type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { OutboundError } from './errors.js';

/** `dns.lookup` called with `{ all: true }`: the shape tests inject to fake DNS. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Returns why an address is refused, or null to allow it. */
export type AddressPolicy = (ip: string) => string | null;

export const systemLookup: LookupAll = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/**
 * The `connect.lookup` handed to undici, so it runs for every new connection (first request,
 * each redirect hop, reconnects after keep-alive expiry). The addresses it vets are the very
 * addresses the socket dials: there is no second resolution an attacker's DNS could answer
 * differently (DNS rebinding). A host is refused if ANY of its addresses is forbidden, since
 * Node may fall back to any of them (happy eyeballs).
 *
 * Literal-IP hosts never reach a lookup function (net.connect skips it), so the client checks
 * those itself before sending.
 */
export function vettingLookup(lookup: LookupAll, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(dnsError(hostname, err.code), '');
      const list = Array.isArray(addresses) ? addresses : [];
      for (const a of list) {
        const reason = policy(a.address);
        if (reason) return callback(forbiddenError(hostname, a.address, reason), '');
      }
      const family = familyNumber(options.family);
      const usable = family ? list.filter((a) => a.family === family) : list;
      const first = usable[0];
      if (!first) return callback(dnsError(hostname, 'ENODATA'), '');
      // Node asks for {all: true} when it races address families (autoSelectFamily), a single
      // address otherwise; answer in the shape it asked for.
      if (options.all) callback(null, usable);
      else callback(null, first.address, first.family);
    });
  };
}

export function forbiddenError(host: string, ip: string, reason: string, url = host): OutboundError {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const what = bare === ip ? `${ip} (${reason})` : `${host} (${ip}, ${reason})`;
  return new OutboundError('forbidden_address', `Refusing to connect to ${what}`, url);
}

function dnsError(host: string, code: string | undefined): OutboundError {
  const why = code === 'ENOTFOUND' || code === 'ENODATA' ? 'no such host' : (code ?? 'lookup failed');
  return new OutboundError('dns', `Cannot resolve ${host} (${why})`, host);
}

function familyNumber(f: LookupFunctionOptions['family']): 4 | 6 | 0 {
  if (f === 4 || f === 'IPv4') return 4;
  if (f === 6 || f === 'IPv6') return 6;
  return 0;
}

type LookupFunctionOptions = Parameters<LookupFunction>[1];
