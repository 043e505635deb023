#!/usr/bin/env python3
"""Issue 31: where a request's TTFT went, from a loopback packet capture (tcpdump -i lo --time-stamp-precision=nano).

For every POST to PORT, in the order the requests were sent, prints one line: the nanosecond capture times of the
request's last packet before the reply began, and of the server's first packet carrying a streamed content delta
("delta":{"content":"..."}). Their difference is the server's part of TTFT as the wire saw it (prompt, queueing and the
server's own HTTP), the rest of a client's TTFT is the client's (start → request on the wire, the first content
packet → the client's reading). A request without a content packet prints 0 for it.
Usage: pcap_split.py CAPTURE.pcap PORT
"""
import struct
import sys


def packets(path):
    data = open(path, 'rb').read()
    nano = struct.unpack('<I', data[:4])[0] == 0xa1b23c4d
    link = struct.unpack('<I', data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack('<IIII', data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ip = frame[14:] if link == 1 else frame[16:] if link == 113 else frame
        if not ip or ip[0] >> 4 != 4:
            continue
        tcp = ip[(ip[0] & 15) * 4:]
        sport, dport = struct.unpack('>HH', tcp[:4])
        yield sec * 1_000_000_000 + (frac if nano else frac * 1000), sport, dport, tcp[(tcp[12] >> 4) * 4:]


port = int(sys.argv[2])
current, requests = {}, []
for t, sport, dport, payload in packets(sys.argv[1]):
    if not payload:
        continue
    if dport == port:
        if payload.startswith(b'POST '):
            current[sport] = {'sent': t, 'first': 0}
            requests.append(current[sport])
        elif sport in current and not current[sport]['first']:
            current[sport]['sent'] = t  # the request's later packets, before its reply began
    elif sport == port:
        r = current.get(dport)
        if r and not r['first'] and b'"delta":{"content":"' in payload:
            r['first'] = t
for r in requests:
    print(r['sent'], r['first'])
