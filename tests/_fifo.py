"""A named pipe filled by a thread, for the tests of inputs read from pipes."""

import os
import threading


def fifo_with(folder, name, data):
    """A named pipe ``folder / name`` that a thread fills with ``data`` (``str`` or
    ``bytes``): what ``/dev/stdin`` is in a shell pipeline, ``cat run | sklearn-rank
    evaluate --run /dev/stdin``."""
    path = folder / name
    os.mkfifo(path)

    def write():
        with open(path, "wb" if isinstance(data, bytes) else "w") as pipe:
            pipe.write(data)  # the open blocks until the reader opens the pipe

    threading.Thread(target=write, daemon=True).start()
    return path
