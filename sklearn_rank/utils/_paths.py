"""Whether two paths name one file: shared by the data sources, which refuse a file given
twice, and the command line, which refuses an output that would replace an input. Standard
library only."""

import os


def same_file(a, b):
    """Whether two paths name one file: after symlinks and relative parts, or a hard link."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False
