#!/usr/bin/env python3
"""Run a command on a pseudo-terminal of a given size and drive it.

pty_run.py COLS[xROWS] LOG STEP... -- CMD ARGS...

The terminal is COLS wide and ROWS (default 40) high.
Each STEP is "expect:TEXT" (wait until the output so far holds TEXT),
"send:KEYS" (type KEYS; \\x03 is Ctrl-C), "sleep:SECS" (read the output
for SECS seconds), or "mark" (start the clock
the last line reports).  All output goes to LOG.  The last line printed is
"exit=RC secs=S restored=yes|no": the command's exit code (-N for signal
N), seconds from the mark (or the start) to its exit, and whether the
terminal was back in canonical mode with echo once it ended.  A step that
times out, or a command still running 20 s in, is killed: exit=timeout.
"""
import os
import pty
import select
import struct
import sys
import termios
import fcntl
import time

TIMEOUT = 20


def main():
    size, log = sys.argv[1].split("x") + ["40"], sys.argv[2]
    cols, rows = int(size[0]), int(size[1])
    split = sys.argv.index("--")
    steps, cmd = sys.argv[3:split], sys.argv[split + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    out = bytearray()
    start = mark = time.monotonic()

    def pump(wait):
        r, _, _ = select.select([fd], [], [], wait)
        if not r:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        out.extend(data)
        return bool(data)

    ok = True
    for step in steps:
        kind, _, arg = step.partition(":")
        if kind == "expect":
            while arg.encode() not in out:
                if time.monotonic() - start > TIMEOUT or not pump(0.1):
                    ok = False
                    break
        elif kind == "send":
            os.write(fd, arg.encode().decode("unicode_escape").encode())
        elif kind == "sleep":
            until = time.monotonic() + float(arg)
            while time.monotonic() < until and pump(0.05):
                pass
        elif kind == "mark":
            mark = time.monotonic()
        if not ok:
            break
    restored = "no"
    while ok:
        if time.monotonic() - start > TIMEOUT:
            ok = False
            break
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            secs = time.monotonic() - mark
            attrs = termios.tcgetattr(fd)
            if attrs[3] & termios.ICANON and attrs[3] & termios.ECHO:
                restored = "yes"
            while pump(0.05):
                pass
            break
        pump(0.05)
    with open(log, "wb") as f:
        f.write(out)
    if not ok:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        print("exit=timeout secs=- restored=no")
        return
    print("exit=%d secs=%.1f restored=%s"
          % (os.waitstatus_to_exitcode(status), secs, restored))


main()
