import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses an original image may be fetched from: public unicast only. The special
 * ranges (private, loopback, link-local, CGNAT, unique-local, multicast, NAT64, 6to4, Teredo …)
 * come from ipaddr.js; an IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 *
 * One gap of ipaddr.js is closed here: the IPv4-compatible IPv6 block `::/96` (deprecated by
 * RFC 4291 §2.5.5.1, never routed publicly). ipaddr.js classifies `::7f00:1` as unicast and
 * reads the dotted spelling `::127.0.0.1` as if it were `::ffff:127.0.0.1`, so `::8.8.8.8`
 * would pass while the same bytes as `::808:808` are judged otherwise. The whole block is
 * refused, whatever address it embeds, with Node's own address parser (`net.BlockList`).
 */
const ipv4Compatible = new net.BlockList();
ipv4Compatible.addSubnet('::', 96, 'ipv6');

/** A public unicast address in canonical text (as URLs, DNS and sockets give them). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6 && ipv4Compatible.check(address, 'ipv6')) return false;
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}
