"""Whether two paths name one file, and writing a file whole or not at all: shared by the
data sources, which refuse a file given twice, the report writer and the command line, which
refuse an output that would replace an input and never leave a half-written file. Standard
library only."""

import os
import stat
import tempfile


def same_file(a, b):
    """Whether two paths name one file: after symlinks and relative parts, or a hard link."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def write_atomic(path, write):
    """Write a file through a temporary file in its folder, renamed into place when complete.

    A crash or an error leaves the previous file, if any, as it was, never a half-written
    one. A symlink is followed: its target is replaced. The new file keeps the permissions of
    the file it replaces, or gets the usual ones (those the umask allows).

    Parameters
    ----------
    path : str or path-like
        The file to write.
    write : callable
        ``write(temporary_path)`` writes the whole content to the temporary path.

    Raises
    ------
    OSError
        When the folder cannot take the temporary file, or writing or renaming it fails; no
        temporary file is left behind.
    """
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    if os.path.exists(target):
        mode = stat.S_IMODE(os.stat(target).st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    os.close(handle)
    try:
        write(temporary)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
