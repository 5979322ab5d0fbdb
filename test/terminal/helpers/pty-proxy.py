#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal and relays it: what this process reads on stdin is
typed into the terminal, and everything the command writes to the terminal (its stdout
and stderr both) comes out on this process's stdout, byte for byte. Exits with the
command's exit code (128 + N when a signal N ended it).

    python3 pty-proxy.py COLUMNS ROWS -- node bin/cpctl.js deploy create

The test on the other end decides what to type and when (see pty.ts). Nothing here sleeps.
A SIGTERM sent to this process is passed on to the command (the way a test sends it one);
a SIGUSR1 makes the terminal 0 columns by 0 rows, as a resize would (the command gets SIGWINCH).
"""
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios


def main() -> int:
    columns, rows = int(sys.argv[1]), int(sys.argv[2])
    argv = sys.argv[4:] if sys.argv[3] == "--" else sys.argv[3:]
    child = []
    # Set before the fork: the command's exec puts it back to the default.
    signal.signal(signal.SIGTERM, lambda *_: child and os.kill(child[0], signal.SIGTERM))
    pid, master = pty.fork()
    if pid == 0:
        # The child: its stdin, stdout and stderr are the terminal. Give it a size first.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        os.execvp(argv[0], argv)
    child.append(pid)
    # Set before any output is relayed: a test sends it only after seeing some.
    signal.signal(
        signal.SIGUSR1,
        lambda *_: fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0)),
    )

    stdin = sys.stdin.fileno()
    stdout = sys.stdout.fileno()
    reading_stdin = True
    while True:
        watched = [master] + ([stdin] if reading_stdin else [])
        ready, _, _ = select.select(watched, [], [])
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError as error:
                # EIO: the child closed the terminal (it exited).
                if error.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                break
            os.write(stdout, data)
        if stdin in ready:
            data = os.read(stdin, 65536)
            if data:
                os.write(master, data)
            else:
                reading_stdin = False

    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
