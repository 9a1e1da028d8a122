#!/usr/bin/env python3
# slow_clients.py PORT MODE N IPS SECS: open N connections to
# 127.0.0.1:PORT from source addresses 127.0.0.2 .. 127.0.0.(1+IPS) and
# trickle one byte every 0.5 s for SECS seconds, then print
# "opened=A refused=R closed_by_server=C longest_s=L" (L: the longest a
# connection the server closed was open).  MODE "line": a request line
# never ends; "headers": a complete request line, then headers never end;
# "body": complete headers announce a body that never ends.
import select, socket, sys, time

port, mode, n, ips, secs = (int(sys.argv[1]), sys.argv[2], int(sys.argv[3]),
                            int(sys.argv[4]), float(sys.argv[5]))
prefix = {"line": b"", "headers": b"GET /metrics HTTP/1.1\r\n",
          "body": b"GET /metrics HTTP/1.1\r\nContent-Length: 100000\r\n\r\n"}[mode]
body = {"line": b"GET /", "headers": b"X-Slow: ", "body": b""}[mode] + b"a" * 4096
conns, refused, closed, longest = {}, 0, 0, 0.0
for i in range(n):
    s = socket.socket()
    s.bind(("127.0.0." + str(2 + i % ips), 0))
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
        if prefix:
            s.sendall(prefix)
    except OSError:
        refused += 1
        s.close()
        continue
    s.setblocking(False)
    conns[s] = [time.monotonic(), 0]
opened = len(conns)
end = time.monotonic() + secs
while conns and time.monotonic() < end:
    for s, st in list(conns.items()):
        gone = False
        try:
            s.send(body[st[1]:st[1] + 1])
            st[1] += 1
        except OSError:
            gone = True
        r, _, _ = select.select([s], [], [], 0)
        if r:
            try:
                gone = gone or s.recv(4096) == b"" or True
            except OSError:
                gone = True
        if gone:
            closed += 1
            longest = max(longest, time.monotonic() - st[0])
            s.close()
            del conns[s]
    time.sleep(0.5)
for s in conns:
    s.close()
print("opened=%d refused=%d closed_by_server=%d longest_s=%.1f"
      % (opened, refused, closed, longest))
