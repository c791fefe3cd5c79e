"""Fetchers of the public learning-to-rank data sets: download, verify, parse once, cache.

In the manner of scikit-learn's ``fetch_*`` functions (``sklearn/datasets/_base.py``), with
three differences that data sets of gigabytes call for:

- **Downloads resume.** An archive is written to ``<name>.part``; a transfer cut short (by the
  network, the server or the user) is resumed with an HTTP ``Range`` request, within the call
  (``n_retries``) or at the next one. The file gets its real name (``os.replace``, atomic)
  only once its size and, where one is known, its SHA-256 match: a partial file is never taken
  for a whole one. A server that ignores ``Range`` sends the whole file again, which replaces
  the part.
- **The parsed arrays are cached** in one ``.npz`` per data set, fold and dtype, written
  atomically, stamped with a format version and the size, time and SHA-256 of the source it
  was parsed from, so that a second load reads arrays instead of parsing text. A corrupt
  cache is rebuilt from its source with a warning (it is derived data); when the source is
  gone and may not be downloaded, the error names the file to delete.
- **Query ids stay distinct across the train, validation and test files.** The published ids
  are kept when the files of a fold share none, which is checked at the first parse (MSLR-WEB
  and LETOR 4.0 put each query in one of five parts); otherwise the ids of the validation and
  test files are shifted past the others, by a power of ten that keeps the published id
  readable (``qid_offset``).

One process at a time downloads or parses a data set: the folder of the data set is locked
(``fcntl.flock``, POSIX only) while it does, and the others wait, then read its cache.

Nothing here is imported at ``import sklearn_rank.datasets`` time that costs: the archive and
network modules are imported when a fetcher runs.
"""

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real
from pathlib import Path
from stat import S_ISREG

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from ..utils._param_validation import Interval, StrOptions, validate_params
from ._errors import FetchError
from ._files import load_svmlight_ranking

#: Environment variable of the data folder, as ``SCIKIT_LEARN_DATA`` is scikit-learn's.
DATA_HOME_ENV = "SKLEARN_RANK_DATA"
#: Environment variable of a mirror: a URL (or a folder) serving the archives by file name.
MIRROR_ENV = "SKLEARN_RANK_MIRROR"

# Bump when the layout of the cache files changes: older caches are then rebuilt, silently.
_CACHE_FORMAT = 1
_CHUNK = 1 << 20
_TIMEOUT = 60  # seconds without a byte before a transfer counts as interrupted
# A transfer slower than this (bytes per second, over each _TIMEOUT seconds) is interrupted
# too: a server sending a byte now and then would never trip the timeout.
_MIN_RATE = 1024
# Seconds one call may spend downloading, retries included (the next call resumes).
_MAX_SECONDS = 48 * 3600
# Bytes a download of unknown size may take (no published size, no Content-Length).
_MAX_UNKNOWN_SIZE = 20 * 2**30
_SPLITS = ("train", "vali", "test")


@dataclass(frozen=True)
class RemoteArchive:
    """An archive as its publisher serves it.

    ``url`` is None when the publisher has no direct link (a page behind a form, a shared
    folder): the archive is then fetched from a mirror, or put in place by hand. ``sha256``
    and ``size`` are None when no record of them could be found: the archive is then checked
    by its parsing only.
    """

    filename: str
    url: str | None
    sha256: str | None
    size: int | None
    page: str
    checksum_source: str | None = None


@dataclass(frozen=True)
class DataSet:
    """A data set: its archive, where each split's file lies in it, its shape and licence."""

    title: str
    folder: str
    archive: RemoteArchive
    member: str  # a split's file in the archive: "Fold{fold}/{split}.txt"
    n_features: int
    licence: str


_MSLR_PAGE = "https://www.microsoft.com/en-us/research/project/mslr/"
_MSLR_LICENCE = ("Microsoft Research's online agreement on the MSLR page (research use); "
                 "by downloading you accept it")
_TFDS = ("recorded by TensorFlow Datasets (tensorflow_datasets/ranking/*/checksums.tsv) and "
         "pytorchltr for the same link; the publisher publishes none")
_LETOR_PAGE = ("https://www.microsoft.com/en-us/research/project/"
               "letor-learning-rank-information-retrieval/letor-4-0/")

#: The data sets the fetchers know, by the names the command line uses.
DATASETS = {
    "mslr-web10k": DataSet(
        title="MSLR-WEB10K", folder="mslr_web10k",
        archive=RemoteArchive(
            filename="MSLR-WEB10K.zip",
            url="https://api.onedrive.com/v1.0/shares/s!AtsMfWUz5l8nbOIoJ6Ks0bEMp78/root/content",
            sha256="2902142ea33f18c59414f654212de5063033b707d5c3939556124b1120d3a0ba",
            size=1234144912, page=_MSLR_PAGE, checksum_source=_TFDS),
        member="Fold{fold}/{split}.txt", n_features=136, licence=_MSLR_LICENCE),
    "mslr-web30k": DataSet(
        title="MSLR-WEB30K", folder="mslr_web30k",
        archive=RemoteArchive(
            filename="MSLR-WEB30K.zip",
            url="https://api.onedrive.com/v1.0/shares/s!AtsMfWUz5l8nbXGPBlwD1rnFdBY/root/content",
            sha256="08cb7977e1d5cbdeb57a9a2537a0923dbca6d46a76db9a6afc69e043c85341ae",
            size=3849406307, page=_MSLR_PAGE, checksum_source=_TFDS),
        member="Fold{fold}/{split}.txt", n_features=136, licence=_MSLR_LICENCE),
    "istella-s": DataSet(
        title="Istella-S LETOR", folder="istella_s",
        archive=RemoteArchive(
            filename="istella-s-letor.tar.gz",
            url="http://library.istella.it/dataset/istella-s-letor.tar.gz",
            sha256="41b21116a3650cc043dbe16f02ee39f4467f9405b37fdbcc9a6a05e230a38981",
            size=472129615, page="http://quickrank.isti.cnr.it/istella-dataset/",
            checksum_source=_TFDS),
        member="sample/{split}.txt", n_features=220,
        licence="the Istella LETOR Licence Agreement: non-commercial use only"),
    "letor4-mq2007": DataSet(
        title="LETOR 4.0 MQ2007", folder="letor4",
        archive=RemoteArchive(filename="MQ2007.rar", url=None, sha256=None, size=None,
                              page=_LETOR_PAGE),
        member="MQ2007/Fold{fold}/{split}.txt", n_features=46,
        licence="Microsoft Research's online agreement on the LETOR 4.0 page"),
    "letor4-mq2008": DataSet(
        title="LETOR 4.0 MQ2008", folder="letor4",
        archive=RemoteArchive(filename="MQ2008.rar", url=None, sha256=None, size=None,
                              page=_LETOR_PAGE),
        member="MQ2008/Fold{fold}/{split}.txt", n_features=46,
        licence="Microsoft Research's online agreement on the LETOR 4.0 page"),
}

_YAHOO = DataSet(
    title="Yahoo! Learning to Rank Challenge", folder="yahoo_ltr",
    archive=RemoteArchive(filename="ltrc_yahoo.tar.bz2", url=None, sha256=None, size=None,
                          page="https://webscope.sandbox.yahoo.com/catalog.php?datatype=c"),
    member="set{fold}.{split}.txt", n_features=700,
    licence="the Yahoo! Webscope data sharing agreement")
# Yahoo! names its validation files "valid", the others "vali".
_YAHOO_SPLIT = {"train": "train", "vali": "valid", "test": "test"}


def get_data_home(data_home=None):
    """The folder of the data sets that sklearn-rank downloads, created if absent.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder. None means the ``SKLEARN_RANK_DATA`` environment variable, or
        ``~/sklearn_rank_data`` when it is not set. ``~`` is expanded.

    Returns
    -------
    data_home : str
        The folder.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.datasets import get_data_home
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     home = get_data_home(os.path.join(folder, "ltr"))
    ...     os.path.isdir(home)
    True
    """
    if data_home is None:
        data_home = os.environ.get(DATA_HOME_ENV) or os.path.join("~", "sklearn_rank_data")
    data_home = os.path.expanduser(os.fspath(data_home))
    os.makedirs(data_home, exist_ok=True)
    return data_home


# -- Progress -------------------------------------------------------------------------------

class _Progress:
    """Progress of downloads and parsing on stderr, dependency-free.

    As the command line's progress line: on a terminal, one line redrawn in place; elsewhere
    (a log, a pipe), plain lines, one per tenth of a download. ``enabled=None`` shows it on a
    terminal only, so that scripts and tests stay quiet unless they ask.
    """

    def __init__(self, enabled):
        stream = sys.stderr
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.enabled = self.tty if enabled is None else bool(enabled)

    def note(self, text):
        if self.enabled:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def bar(self, what, done, total):
        return _Bar(self, what, done, total)


class _Bar:
    width = 24

    def __init__(self, progress, what, done, total):
        self.progress, self.what, self.done, self.total = progress, what, done, total
        self.start, self.first, self.shown = time.perf_counter(), done, -1
        self.last_draw = 0.0
        self._line = 0

    def update(self, n):
        self.done += n
        if not self.progress.enabled:
            return
        if self.progress.tty:
            now = time.perf_counter()
            if now - self.last_draw >= 0.2:
                self.last_draw = now
                self._draw()
            return
        step = (10 * self.done // self.total if self.total
                else self.done // (64 * _CHUNK))
        if step != self.shown:
            self.shown = step
            sys.stderr.write(f"{self.what}: {self._amount()}\n")
            sys.stderr.flush()

    def _amount(self):
        mb = self.done / 1e6
        if self.total:
            return f"{100 * self.done // self.total}% ({mb:.1f} of {self.total / 1e6:.1f} MB)"
        return f"{mb:.1f} MB"

    def _draw(self):
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = (self.done - self.first) / elapsed / 1e6
        if self.total:
            filled = round(self.width * self.done / self.total)
            bar = "[" + "#" * filled + "." * (self.width - filled) + "] "
        else:
            bar = ""
        text = f"{self.what} {bar}{self._amount()}, {rate:.1f} MB/s"
        sys.stderr.write("\r" + text.ljust(self._line))
        sys.stderr.flush()
        self._line = len(text)

    def close(self):
        if self.progress.enabled and self.progress.tty:
            self._draw()
            sys.stderr.write("\n")
            sys.stderr.flush()


# -- Download -------------------------------------------------------------------------------

class _Refused(Exception):
    """The server answered, and retrying would get the same answer (404, wrong file...)."""


class _Slow(OSError):
    """The transfer went on slower than :data:`_MIN_RATE`: interrupted, and retried."""


class _OutOfTime(Exception):
    """The call spent :data:`_MAX_SECONDS` downloading."""


def _permanent(exc):
    """Whether an error of ``urlopen`` is one that a retry would meet again: a redirect
    refused (to another scheme, or a loop), a URL of no known scheme, a certificate that
    does not verify, a file missing from a folder mirror."""
    import ssl
    from urllib.error import HTTPError, URLError

    if isinstance(exc, HTTPError):
        return 300 <= exc.code < 400 or (400 <= exc.code < 500 and exc.code not in (408, 429))
    if isinstance(exc, URLError):
        reason = exc.reason
        return (isinstance(reason, (ssl.SSLCertVerificationError, FileNotFoundError,
                                    IsADirectoryError, PermissionError))
                or (isinstance(reason, str) and reason.startswith("unknown url type")))
    return isinstance(exc, ValueError)  # urllib's "unknown url type" of a Request


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _url(archive, mirror):
    """Where to download ``archive`` from: the mirror (argument, then environment), or its own
    link. A mirror serves the archives by their file name; a folder is a ``file://`` mirror."""
    mirror = os.fspath(mirror) if mirror is not None else os.environ.get(MIRROR_ENV) or None
    if mirror is None:
        return archive.url
    if "://" not in mirror:
        mirror = Path(mirror).expanduser().resolve().as_uri()
    from urllib.parse import quote

    return mirror.rstrip("/") + "/" + quote(archive.filename)


def _content_range(value):
    """``(start, total)`` of a ``Content-Range: bytes start-end/total`` header (total None if
    ``*``), or None when the header is absent or unreadable."""
    match = re.fullmatch(r"\s*bytes\s+(\d+)-\d+/(\d+|\*)\s*", value or "")
    if match is None:
        return None
    return int(match[1]), None if match[2] == "*" else int(match[2])


def _transfer(url, part, size, bar_of, deadline=float("inf")):
    """One request for what ``part`` lacks; True when the file is whole, False when the
    transfer stopped early (the caller retries, resuming).

    The transfer stops as soon as the file would be longer than ``size`` (or, of unknown
    size, than :data:`_MAX_UNKNOWN_SIZE`), when it goes slower than :data:`_MIN_RATE`, and
    at ``deadline`` (``time.monotonic``).
    """
    from urllib.error import HTTPError
    from urllib.request import Request, urlopen

    from .._version import __version__

    have = part.stat().st_size if part.exists() else 0
    if size is not None and have > size:
        part.unlink()
        have = 0
    if size is not None and have == size:
        return True
    headers = {"User-Agent": f"sklearn-rank/{__version__}"}
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        response = urlopen(Request(url, headers=headers), timeout=_TIMEOUT)
    except HTTPError as exc:
        exc.close()  # its body holds the socket
        if exc.code == 416 and have:
            # nothing left to send from `have`: the part is whole, or longer than the file
            total = re.fullmatch(r"\s*bytes\s+\*/(\d+)\s*",
                                 (exc.headers or {}).get("Content-Range") or "")
            if total is not None and int(total[1]) == have:
                return True
            part.unlink()  # longer than the file: start again from zero
            return _transfer(url, part, size, bar_of, deadline)
        if _permanent(exc):  # one line, even of urllib's message on a redirect loop
            raise _Refused(f"HTTP {exc.code} {' '.join(str(exc.reason).split())}") from None
        raise
    except Exception as exc:
        if _permanent(exc):
            raise _Refused(" ".join(str(getattr(exc, "reason", None) or exc).split())
                           ) from None
        raise
    with response:
        status = getattr(response, "status", None) or 200
        length = response.headers.get("Content-Length")
        length = (int(length) if length is not None and length.isascii() and length.isdigit()
                  else None)
        if status == 206:
            span = _content_range(response.headers.get("Content-Range"))
            if span is None or span[0] != have:
                response.close()
                part.unlink()  # not the bytes asked for: start again from zero
                return _transfer(url, part, size, bar_of, deadline)
            total = span[1]
            mode = "ab"
        else:  # the whole file: a server without Range support, or a first request
            have, total, mode = 0, length, "wb"
        if size is not None and total is not None and total != size:
            raise _Refused(f"the server sends a file of {total} bytes, not the {size} bytes of "
                           "the published archive")
        bar = bar_of(have, total if total is not None else size)
        # the most this response may add to the part
        most = (size if size is not None else total if total is not None
                else _MAX_UNKNOWN_SIZE) - have
        received = 0
        window, in_window = time.monotonic(), 0
        try:
            with open(part, mode) as out:
                # read1: what has arrived, so that the clock is checked while bytes trickle
                while chunk := response.read1(_CHUNK):
                    if received + len(chunk) > most:
                        out.close()
                        part.unlink()
                        raise _Refused(
                            f"the server sends more than the {size} bytes of the published "
                            "archive" if size is not None else
                            f"the server sends more than the {total} bytes it announced"
                            if total is not None else
                            f"the server sends more than {_MAX_UNKNOWN_SIZE} bytes, the "
                            "most a download of unknown size may take")
                    out.write(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
                    now = time.monotonic()
                    if now > deadline:
                        raise _OutOfTime
                    in_window += len(chunk)
                    if now - window >= _TIMEOUT:
                        if in_window < _MIN_RATE * (now - window):
                            raise _Slow(f"the transfer went slower than {_MIN_RATE} bytes "
                                        f"per second for {_TIMEOUT} seconds")
                        window, in_window = now, 0
        finally:
            bar.close()
    # http.client returns no more bytes, without an error, when a connection closes early
    return length is None or received == length


def _download(archive, url, path, *, n_retries, delay, progress):
    """Download ``url`` to ``path`` through ``path.part``; return the file's SHA-256.

    Resumes the part left by an earlier call; retries ``n_retries`` times, resuming, after a
    transfer stops early or fails; verifies the size and the SHA-256 (when known) before the
    rename. A wrong checksum removes the part and raises.
    """
    from http.client import HTTPException
    from urllib.error import URLError

    part = path.with_name(path.name + ".part")
    if part.exists():
        progress.note(f"Resuming the download of {archive.filename} at "
                      f"{part.stat().st_size / 1e6:.1f} MB, from {url}")
    else:
        progress.note(f"Downloading {archive.filename} from {url}")

    def bar_of(done, total):
        return progress.bar(archive.filename, done, total)

    def kept():
        if part.exists() and part.stat().st_size:
            return (f"the part is kept in {str(part)!r} and the next call resumes it.")
        part.unlink(missing_ok=True)
        return "nothing was kept: call again to try anew."

    left = n_retries
    deadline = time.monotonic() + _MAX_SECONDS
    while True:
        try:
            if _transfer(url, part, archive.size, bar_of, deadline):
                break
            reason = "the connection closed before the end of the file"
        except _Refused as exc:
            raise OSError(f"Could not download {archive.filename} from {url}: {exc}. Download "
                          f"it by hand from {archive.page} and put it at {str(path)!r}, or "
                          f"use a mirror (mirror= or {MIRROR_ENV}).") from None
        except _OutOfTime:
            got = part.stat().st_size if part.exists() else 0
            raise OSError(f"The download of {archive.filename} from {url} took more than "
                          f"{_MAX_SECONDS} seconds and stopped at {got} bytes; "
                          + kept()) from None
        except (URLError, HTTPException, OSError) as exc:
            reason = (" ".join(str(getattr(exc, "reason", None) or exc).split())
                      or type(exc).__name__)
        if left == 0 or time.monotonic() + delay > deadline:
            got = part.stat().st_size if part.exists() else 0
            raise OSError(f"The download of {archive.filename} from {url} stopped at {got} "
                          f"bytes ({reason}); " + kept())
        left -= 1
        time.sleep(delay)

    got = part.stat().st_size
    if archive.size is not None and got != archive.size:
        part.unlink()
        raise OSError(f"The download of {archive.filename} from {url} has {got} bytes, not the "
                      f"{archive.size} of the published archive; it was removed. Call again to "
                      "download it anew.")
    digest = _sha256(part)
    if archive.sha256 is not None and digest != archive.sha256:
        part.unlink()
        raise OSError(
            f"The SHA-256 of the download of {archive.filename} from {url} is {digest}, not "
            f"the published archive's {archive.sha256}: the file is corrupt or not the "
            "published one, and was removed. Call again to download it anew, or use another "
            "mirror.")
    os.replace(part, path)
    return digest


# -- Cache ----------------------------------------------------------------------------------

class _CorruptCache(Exception):
    """The cache file cannot be read whole; its message says why."""


def _source_entry(path, name, sha256=None):
    stat = path.stat()
    return {"name": name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "sha256": sha256}


def _stale(stamp, key, base):
    """Why the cache stamped ``stamp`` is not the data of ``key`` parsed from the sources
    under ``base`` (sources since deleted do not count), or None when it is.

    Raises :class:`_CorruptCache` for a stamp that is not the one a fetcher writes: one that
    is no JSON object, or names a source that is no regular file under ``base`` (hashing
    ``/dev/zero`` would never end).
    """
    if not isinstance(stamp, dict):
        raise _CorruptCache(f"its stamp is a JSON {type(stamp).__name__}, not an object")
    if stamp.get("format") != _CACHE_FORMAT:
        return "written by another version of sklearn-rank"
    if stamp.get("dataset") != key:
        return f"of {stamp.get('dataset')!r}, not {key!r}"
    sources = stamp.get("sources")
    if not isinstance(sources, list) or not all(
            isinstance(e, dict) and isinstance(e.get("name"), str)
            and isinstance(e.get("size"), int) and isinstance(e.get("mtime_ns"), int)
            and isinstance(e.get("sha256"), (str, type(None))) for e in sources):
        raise _CorruptCache("its stamp's sources are not those a fetcher writes")
    if not isinstance(stamp.get("qid_offset"), dict):
        raise _CorruptCache("its stamp has no query-id offsets")
    for entry in stamp["sources"]:
        # a name under the folder, as written (the folder may hold links to the files)
        name = Path(entry["name"])
        if name.is_absolute() or ".." in name.parts or not name.parts:
            raise _CorruptCache(f"its stamp names the source {entry['name']!r}, outside "
                                f"{str(base)!r}")
        path = base / name
        if not path.exists():
            continue
        stat = path.stat()
        if not S_ISREG(stat.st_mode):
            raise _CorruptCache(f"its stamp names the source {entry['name']!r}, which is "
                                "not a regular file")
        if stat.st_size != entry["size"]:
            return f"{entry['name']} changed"
        if stat.st_mtime_ns != entry["mtime_ns"] and (
                entry["sha256"] is None or _sha256(path) != entry["sha256"]):
            return f"{entry['name']} changed"
    return None


def _read_cache(path, key, base, subsets, n_features, dtype):
    """The arrays of ``subsets`` from the cache ``path``; None when absent or stale.

    Raises :class:`_CorruptCache` when the file cannot be read whole or its arrays do not
    fit together (zip's CRC-32 of each array is checked as numpy reads it).
    """
    import zipfile

    if not path.exists():
        return None
    try:
        # numpy leaks its own handle when the zip is unreadable: open it here; and it
        # would try a file that is no zip as a pickle, which it refuses with advice to
        # load it "unsafely": a cache is only ever a zip of arrays
        with open(path, "rb") as handle:
            if not zipfile.is_zipfile(handle):
                raise _CorruptCache("not a zip archive of arrays")
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as npz:
            stamp = json.loads(str(npz["stamp"]))
            if _stale(stamp, key, base) is not None:
                return None
            out = {}
            for split in subsets:
                parts = {name: npz[f"{split}.{name}"]
                         for name in ("data", "indices", "indptr", "shape", "y", "qid")}
                out[split] = _check_cached(parts, split, n_features, dtype)
            return out, stamp
    except _CorruptCache:
        raise
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        text = str(exc).splitlines()[0] if str(exc) else ""
        raise _CorruptCache(f"{type(exc).__name__}: {text}" if text else type(exc).__name__
                            ) from None


def _check_cached(parts, split, n_features, dtype):
    """The CSR matrix, grades and ids of a split of the cache, once they are seen to fit."""
    data, indices, indptr, shape, y, qid = (parts[k] for k in
                                            ("data", "indices", "indptr", "shape", "y", "qid"))

    def check(fits, what):
        if not fits():
            raise _CorruptCache(f"{what} of the {split} split do not fit")

    check(lambda: shape.shape == (2,) and shape[0] >= 0 and shape[1] == n_features,
          "the shape")
    n_rows = int(shape[0])
    check(lambda: data.dtype == dtype and len(indices) == len(data), "the values")
    check(lambda: indptr.shape == (n_rows + 1,) and indptr[0] == 0
          and indptr[-1] == len(data) and not np.any(np.diff(indptr) < 0), "the row pointers")
    check(lambda: not len(indices) or (indices.min() >= 0 and indices.max() < n_features),
          "the columns")
    check(lambda: y.shape == (n_rows,) and y.dtype == np.float64 and np.isfinite(y).all(),
          "the grades")
    check(lambda: qid.shape == (n_rows,) and qid.dtype == np.int64, "the query ids")
    return sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_features)), y, qid


def _write_cache(path, arrays, stamp):
    """Write the cache with a temporary name in its folder, then rename it: atomic."""
    payload = {"stamp": np.array(json.dumps(stamp))}
    for split, (X, y, qid) in arrays.items():
        payload |= {f"{split}.data": X.data, f"{split}.indices": X.indices,
                    f"{split}.indptr": X.indptr, f"{split}.shape": np.array(X.shape),
                    f"{split}.y": y, f"{split}.qid": qid}
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextmanager
def _folder_lock(folder):
    """Hold an exclusive lock on ``folder`` (POSIX), so that one process downloads or parses
    a data set while the others wait."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


# -- Parsing --------------------------------------------------------------------------------

def _qid_offsets(qids):
    """Shifts that make the query ids of several files distinct: all 0 when they already are.

    Otherwise the ``i``-th file's ids are shifted by ``i * 10**d``, the smallest power of ten
    larger than the span of all ids, so that the published id stays readable in the last
    digits.
    """
    uniques = [np.unique(q) for q in qids]
    seen = np.array([], dtype=np.int64)
    clash = False
    for ids in uniques:
        if np.intersect1d(seen, ids, assume_unique=True).size:
            clash = True
            break
        seen = np.union1d(seen, ids)
    if not clash:
        return [0] * len(qids)
    low = min(int(u.min()) for u in uniques if u.size)
    high = max(int(u.max()) for u in uniques if u.size)
    step = 10 ** len(str(high - low + 1))
    return [i * step for i in range(len(qids))]


def _parse(files, n_features, dtype, progress, title):
    """``{split: (X, y, qid)}`` of the files ``{split: path}``, ids made distinct."""
    arrays = {}
    for split, path in files.items():
        progress.note(f"{title}: parsing {path.name} ({split}); done once, then cached")
        arrays[split] = load_svmlight_ranking(path, n_features=n_features, zero_based=False,
                                              dtype=dtype)
    offsets = _qid_offsets([qid for _, _, qid in arrays.values()])
    arrays = {split: (_compact(X), y.astype(np.float64), (qid + offset).astype(np.int64))
              for (split, (X, y, qid)), offset in zip(arrays.items(), offsets)}
    return arrays, dict(zip(arrays, offsets))


def _compact(X):
    """``X`` with 32-bit column indices and row pointers when they fit (scikit-learn's reader
    gives 64-bit ones): a quarter less memory and cache for data as dense as MSLR's. The
    zeros written in the file stay stored, as the reader keeps them: XGBoost reads a stored
    zero as 0 but an absent entry as missing."""
    X = X.tocsr()
    if X.nnz < np.iinfo(np.int32).max:
        X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                          shape=X.shape)
    return X


def _find_member(names, suffix, archive, missing_ok=False):
    """The one name of ``names`` that is ``suffix`` or ends with ``/suffix``."""
    hits = [n for n in names if n == suffix or n.endswith("/" + suffix)]
    if not hits and missing_ok:
        return None
    if not hits:
        raise OSError(f"{str(archive)!r} holds no {suffix!r}: it is not the archive of this "
                      "data set, or not whole. Delete it and call again to download it anew.")
    if len(hits) > 1:
        raise OSError(f"{str(archive)!r} holds {len(hits)} files named {suffix!r} "
                      f"({hits[0]!r}, {hits[1]!r}); expected one.")
    return hits[0]


def _extract(archive, suffixes, folder):
    """Copy the members ending with ``suffixes`` (``{split: suffix}``) of a zip or tar archive
    into ``folder``; ``{split: path}``. A tar is read in one pass, as it is compressed."""
    import tarfile
    import zipfile
    import zlib

    out = {split: folder / f"{split}.txt" for split in suffixes}
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as bundle:
                names = bundle.namelist()
                for split, suffix in suffixes.items():
                    with bundle.open(_find_member(names, suffix, archive)) as src, \
                            open(out[split], "wb") as dst:
                        shutil.copyfileobj(src, dst, _CHUNK)
            return out
        found = {}
        with tarfile.open(archive, "r|*") as bundle:
            for member in bundle:
                for split, suffix in suffixes.items():
                    if member.isfile() and _find_member([member.name], suffix, archive,
                                                        missing_ok=True):
                        if split in found:
                            _find_member([found[split], member.name], suffix, archive)
                        found[split] = member.name
                        with bundle.extractfile(member) as src, open(out[split], "wb") as dst:
                            shutil.copyfileobj(src, dst, _CHUNK)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error) as exc:
        raise OSError(f"{str(archive)!r} is not a readable archive ({exc}): delete it and call "
                      "again to download it anew.") from None
    for split, suffix in suffixes.items():
        if split not in found:
            _find_member([], suffix, archive)
    return out


# -- Loading --------------------------------------------------------------------------------

def _check_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be numpy.float32 or numpy.float64; got {dtype}.")
    return dtype


def _load(spec, key, cache, base, subset, dtype, build, available, progress,
          stacklevel):
    """The Bunch pieces of ``subset``: read from ``cache``, else built by ``build()`` (which
    returns ``(arrays, sources)``) under the folder's lock and cached.

    ``available()`` says whether ``build`` can run (the source is there, or may be
    downloaded): a corrupt cache without a source is an error naming the file to delete.
    """
    subsets = _SPLITS if subset == "all" else (subset,)
    args = (cache, key, base, subsets, spec.n_features, dtype)
    try:
        found = _read_cache(*args)
    except _CorruptCache:
        found = None
    if found is None:
        with _folder_lock(cache.parent):
            try:
                found = _read_cache(*args)
            except _CorruptCache as exc:
                if not available():
                    raise FetchError(
                        "The cache {path!r} is corrupt ({error}), and the source of {title} "
                        "is not here to rebuild it from: delete the file and call again "
                        "with the source in place, or {name[with download_if_missing=True]}.",
                        path=cache, error=str(exc), title=spec.title) from None
                warnings.warn(f"The cache {str(cache)!r} is corrupt ({exc}); rebuilding it "
                              f"from the source of {spec.title}.", UserWarning,
                              stacklevel=stacklevel)
                found = None
            if found is None:
                arrays, sources = build()
                stamp = {"format": _CACHE_FORMAT, "dataset": key, "sources": sources,
                         "qid_offset": {s: int(o) for s, o in arrays.pop("_offsets").items()}}
                _write_cache(cache, arrays, stamp)
                progress.note(f"{spec.title}: cached in {cache}")
                found = {s: arrays[s] for s in subsets}, stamp
    return found


def _bunch(found, subset, return_X_y_qid, descr):
    arrays, stamp = found
    if subset == "all":
        X = sp.vstack([arrays[s][0] for s in _SPLITS], format="csr")
        y = np.concatenate([arrays[s][1] for s in _SPLITS])
        qid = np.concatenate([arrays[s][2] for s in _SPLITS])
        split = np.repeat(np.array(_SPLITS), [len(arrays[s][1]) for s in _SPLITS])
    else:
        X, y, qid = arrays[subset]
        split = None
    if return_X_y_qid:
        return X, y, qid
    bunch = Bunch(data=X, target=y, qid=qid, qid_offset=dict(stamp["qid_offset"]))
    if split is not None:
        bunch.split = split
    shifted = any(stamp["qid_offset"].values())
    bunch.DESCR = descr + (
        f"\n\n{X.shape[0]} rows, {len(np.unique(qid))} queries, {X.shape[1]} features."
        "\nQuery ids: " + ("the published ids repeat across the splits, so the validation and "
                           "test ids are shifted by qid_offset."
                           if shifted else "as published (distinct across the splits)."))
    return bunch


def _fetch_archive_set(key, *, fold, subset, data_home, download_if_missing, return_X_y_qid,
                       dtype, mirror, progress, n_retries, delay):
    """Fetch a data set that comes as a zip or tar archive (MSLR-WEB, Istella)."""
    spec = DATASETS[key]
    dtype = _check_dtype(dtype)
    progress = _Progress(progress)
    folder = Path(get_data_home(data_home)) / spec.folder
    folder.mkdir(exist_ok=True)
    archive = folder / spec.archive.filename
    name = f"fold{fold}_{dtype.name}" if fold else f"sample_{dtype.name}"
    cache = folder / f"{name}.npz"
    url = _url(spec.archive, mirror)

    def available():
        return archive.exists() or (download_if_missing and url is not None)

    def build():
        digest = None
        if not archive.exists():
            if not download_if_missing:
                partial = archive.with_name(archive.name + ".part")
                resume = " (the partial download there will be resumed)" if partial.exists() else ""
                raise FetchError(
                    "{title} is not in {path!r} and {name[download_if_missing=False]}: call "
                    "again {name[with download_if_missing=True]} to download {archive}{size}"
                    "{resume}, or put the archive there.", path=folder, title=spec.title,
                    archive=archive.name, size=_size_text(spec.archive), resume=resume)
            digest = _download(spec.archive, url, archive, n_retries=n_retries, delay=delay,
                               progress=progress)
        if digest is None:
            digest = _verify_local(archive, spec.archive)
        suffixes = {split: spec.member.format(fold=fold, split=split) for split in _SPLITS}
        with tempfile.TemporaryDirectory(dir=folder, prefix="extract.") as scratch:
            progress.note(f"{spec.title}: extracting {', '.join(suffixes.values())}")
            files = _extract(archive, suffixes, Path(scratch))
            arrays, offsets = _parse(files, spec.n_features, dtype, progress, spec.title)
        arrays["_offsets"] = offsets
        return arrays, [_source_entry(archive, archive.name, digest)]

    key_fold = f"{key}/fold{fold}/{dtype.name}" if fold else f"{key}/{dtype.name}"
    found = _load(spec, key_fold, cache, folder, subset, dtype, build, available, progress,
                  stacklevel=5)
    descr = _describe(spec, fold, subset, url)
    return _bunch(found, subset, return_X_y_qid, descr)


def _size_text(archive):
    return f" ({archive.size / 1e9:.2f} GB)" if archive.size else ""


def _verify_local(path, archive):
    """The SHA-256 of an archive found in place; an error when it is not the published one
    (the file is left alone: it may be the user's)."""
    if archive.size is not None and path.stat().st_size != archive.size:
        raise OSError(f"{str(path)!r} has {path.stat().st_size} bytes, not the {archive.size} "
                      f"of the published {archive.filename}: it is incomplete or another "
                      "file. Delete it and call again to download it anew.")
    digest = _sha256(path)
    if archive.sha256 is not None and digest != archive.sha256:
        raise OSError(f"The SHA-256 of {str(path)!r} is {digest}, not the published "
                      f"{archive.filename}'s {archive.sha256}: delete it and call again to "
                      "download it anew.")
    return digest


def _describe(spec, fold, subset, url):
    where = f"fold {fold}, " if fold else ""
    checksum = (f"SHA-256 {spec.archive.sha256} ({spec.archive.checksum_source})"
                if spec.archive.sha256 else "none published")
    source = f"{url} (page: {spec.archive.page})" if url else (
        f"no direct link; see {spec.archive.page}")
    return (f"{spec.title}, {where}subset {subset!r}.\nSource: {source}.\n"
            f"Licence: {spec.licence}.\nChecksum: {checksum}.")


def _fill(**tokens):
    """Put the shared Parameters and Returns sections, and ``tokens``, in a docstring."""

    def decorate(func):
        if func.__doc__:  # None under python -OO
            doc = func.__doc__.replace("{parameters}", _PARAMETERS.strip("\n").lstrip())
            doc = doc.replace("{returns}", _RETURNS.strip("\n").lstrip())
            for key, value in tokens.items():
                doc = doc.replace("{" + key + "}", value)
            func.__doc__ = doc
        return func

    return decorate


_COMMON = {
    "subset": [StrOptions({"train", "vali", "test", "all"})],
    "data_home": [str, os.PathLike, None],
    "download_if_missing": ["boolean"],
    "return_X_y_qid": ["boolean"],
    "dtype": "no_validation",  # _check_dtype
    "mirror": [str, os.PathLike, None],
    "progress": ["boolean", None],
    "n_retries": [Interval(Integral, 0, None, closed="left")],
    "delay": [Interval(Real, 0, None, closed="left")],
}
_FOLD = {"fold": [Interval(Integral, 1, 5, closed="both")]}

_PARAMETERS = """
    subset : {"train", "vali", "test", "all"}, default="train"
        The split to return: the training, validation or test file{of_fold}, or all three,
        one after the other, with a ``split`` array naming each row's file.

    data_home : str or path-like, default=None
        Folder of the downloads and caches; None means the ``SKLEARN_RANK_DATA`` environment
        variable, or ``~/sklearn_rank_data``. See :func:`get_data_home`.

    download_if_missing : bool, default=True
        Whether to download the archive when neither it nor the cache is in ``data_home``.
        False raises an ``OSError`` instead.

    return_X_y_qid : bool, default=False
        Whether to return the tuple ``(X, y, qid)`` rather than a Bunch.

    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Dtype of ``X``; float32 halves the memory. Each dtype has its own cache.

    mirror : str or path-like, default=None
        A URL (or a folder) that serves the archives under their file names, here
        ``<mirror>/{filename}``, instead of the publisher's link. None means the
        ``SKLEARN_RANK_MIRROR`` environment variable when it is set. The checksum is the
        same.

    progress : bool, default=None
        Whether to show the progress of the download and the parsing on stderr; None shows
        it when stderr is a terminal.

    n_retries : int, default=3
        Number of times a transfer that stops early or fails is resumed within the call. A
        download that still fails leaves its part in ``data_home``, which the next call
        resumes.

    delay : float, default=1.0
        Seconds to wait before each retry.
"""

_RETURNS = """
    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object, with the attributes:

        data : scipy.sparse.csr_matrix of shape (n_samples, {n_features})
            The features.
        target : ndarray of shape (n_samples,)
            The relevance grades.
        qid : ndarray of int64 of shape (n_samples,)
            The query of each row; distinct across the train, validation and test files.
        qid_offset : dict
            For each split, what was added to its published query ids: 0 unless the
            published ids of two files overlap (then ``10**d`` and ``2 * 10**d``).
        split : ndarray of str of shape (n_samples,)
            Only with ``subset="all"``: ``"train"``, ``"vali"`` or ``"test"``.
        DESCR : str
            Source, licence, checksum and size of the data.

    (X, y, qid) : tuple
        With ``return_X_y_qid=True``, instead of the Bunch.

    Raises
    ------
    OSError
        When the data is not in ``data_home`` and ``download_if_missing=False``, when the
        download fails after its retries (its part is kept for the next call), when the
        archive's size or SHA-256 is not the published one (a download is then removed), or
        when the cache is corrupt and the source is not there to rebuild it.
"""


@validate_params(_COMMON | _FOLD, prefer_skip_nested_validation=True)
@_fill(of_fold=" of the fold", filename="MSLR-WEB10K.zip", n_features="136")
def fetch_mslr_web10k(*, fold=1, subset="train", data_home=None, download_if_missing=True,
                      return_X_y_qid=False, dtype=np.float64, mirror=None, progress=None,
                      n_retries=3, delay=1.0):
    """Load a fold of MSLR-WEB10K, downloading it if necessary.

    =================  ==========================================
    Queries            10,000, 2,000 in each of the parts S1-S5
    Features           136
    Grades             0 (irrelevant) to 4 (perfectly relevant)
    Archive            MSLR-WEB10K.zip, 1.23 GB, SHA-256 known
    =================  ==========================================

    Microsoft's learning-to-rank data set from Bing, a random sample of MSLR-WEB30K. Each of
    the five folds trains on three parts, validates on the fourth and tests on the fifth
    (fold 1: S1-S3, S4, S5), as in the archive's ``Fold1/{train,vali,test}.txt``. Each query
    is in one part, so ``subset="all"`` pools the 10,000 queries for a cross-validation of
    one's own (the published ids are kept; the first parse checks that the files share
    none).

    The archive (a zip) is downloaded once into ``data_home/mslr_web10k/``, and each fold
    parsed once into a cache beside it. Read more in :ref:`datasets`.

    Parameters
    ----------
    fold : int, default=1
        The fold, 1 to 5.

    {parameters}

    {returns}

    See Also
    --------
    fetch_mslr_web30k : The queries MSLR-WEB10K was sampled from.

    Notes
    -----
    Microsoft publishes no checksum; the archive's size and SHA-256 checked here are those
    that TensorFlow Datasets and pytorchltr recorded for the same link. By downloading the
    data you accept Microsoft's agreement on https://www.microsoft.com/en-us/research/project/mslr/.

    References
    ----------
    .. [1] T. Qin and T.-Y. Liu, "Introducing LETOR 4.0 Datasets", arXiv:1306.2597, 2013.

    Examples
    --------
    >>> from sklearn_rank.datasets import fetch_mslr_web10k
    >>> train = fetch_mslr_web10k(fold=1, subset="train")  # doctest: +SKIP
    >>> train.data.shape[1]  # doctest: +SKIP
    136
    >>> X, y, qid = fetch_mslr_web10k(fold=1, subset="test",
    ...                               return_X_y_qid=True)  # doctest: +SKIP
    """
    return _fetch_archive_set(
        "mslr-web10k", fold=fold, subset=subset, data_home=data_home,
        download_if_missing=download_if_missing, return_X_y_qid=return_X_y_qid, dtype=dtype,
        mirror=mirror, progress=progress, n_retries=n_retries, delay=delay)


@validate_params(_COMMON | _FOLD, prefer_skip_nested_validation=True)
@_fill(of_fold=" of the fold", filename="MSLR-WEB30K.zip", n_features="136")
def fetch_mslr_web30k(*, fold=1, subset="train", data_home=None, download_if_missing=True,
                      return_X_y_qid=False, dtype=np.float64, mirror=None, progress=None,
                      n_retries=3, delay=1.0):
    """Load a fold of MSLR-WEB30K, downloading it if necessary.

    =================  ==========================================
    Queries            more than 30,000
    Features           136
    Grades             0 (irrelevant) to 4 (perfectly relevant)
    Archive            MSLR-WEB30K.zip, 3.85 GB, SHA-256 known
    =================  ==========================================

    The whole of Microsoft's Bing learning-to-rank data set, in the layout of
    :func:`fetch_mslr_web10k`: five folds of ``Fold{k}/{train,vali,test}.txt``, each query in
    one of five parts. Downloaded into ``data_home/mslr_web30k/``. A fold holds about
    three times the rows of MSLR-WEB10K's: ``dtype=numpy.float32`` halves their memory. Read more in
    :ref:`datasets`.

    Parameters
    ----------
    fold : int, default=1
        The fold, 1 to 5.

    {parameters}

    {returns}

    See Also
    --------
    fetch_mslr_web10k : A sample of 10,000 of these queries.

    Notes
    -----
    Microsoft publishes no checksum; the archive's size and SHA-256 checked here are those
    that TensorFlow Datasets and pytorchltr recorded for the same link.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.datasets import fetch_mslr_web30k
    >>> X, y, qid = fetch_mslr_web30k(fold=2, subset="train", dtype=np.float32,
    ...                               return_X_y_qid=True)  # doctest: +SKIP
    """
    return _fetch_archive_set(
        "mslr-web30k", fold=fold, subset=subset, data_home=data_home,
        download_if_missing=download_if_missing, return_X_y_qid=return_X_y_qid, dtype=dtype,
        mirror=mirror, progress=progress, n_retries=n_retries, delay=delay)


@validate_params(_COMMON, prefer_skip_nested_validation=True)
@_fill(of_fold="", filename="istella-s-letor.tar.gz", n_features="220")
def fetch_istella_s(*, subset="train", data_home=None, download_if_missing=True,
                    return_X_y_qid=False, dtype=np.float64, mirror=None, progress=None,
                    n_retries=3, delay=1.0):
    """Load Istella-S LETOR, downloading it if necessary.

    =================  ==========================================
    Rows               3,408,630 (about 103 per query)
    Features           220
    Grades             0 to 4
    Archive            istella-s-letor.tar.gz, 0.47 GB, SHA-256 known
    =================  ==========================================

    A sample of the Istella LETOR data set of the Italian search engine Istella, split
    60%-20%-20% into the archive's ``sample/{train,vali,test}.txt``; there is one split,
    no folds. Downloaded into ``data_home/istella_s/``. Istella licenses it for
    non-commercial use only. Read more in :ref:`datasets`.

    Parameters
    ----------
    {parameters}

    {returns}

    Notes
    -----
    Istella publishes no checksum; the archive's size and SHA-256 checked here are those
    that TensorFlow Datasets and pytorchltr recorded for the same link.

    References
    ----------
    .. [1] D. Dato, C. Lucchese, F. M. Nardini, S. Orlando, R. Perego, N. Tonellotto and
       R. Venturini, "Fast Ranking with Additive Ensembles of Oblivious and Non-Oblivious
       Regression Trees", ACM Transactions on Information Systems 35(2), 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.datasets import fetch_istella_s
    >>> data = fetch_istella_s(subset="all")  # doctest: +SKIP
    >>> np.unique(data.split).tolist()  # doctest: +SKIP
    ['test', 'train', 'vali']
    """
    return _fetch_archive_set(
        "istella-s", fold=None, subset=subset, data_home=data_home,
        download_if_missing=download_if_missing, return_X_y_qid=return_X_y_qid, dtype=dtype,
        mirror=mirror, progress=progress, n_retries=n_retries, delay=delay)


@validate_params(_COMMON | _FOLD | {"name": [StrOptions({"MQ2007", "MQ2008"})]},
                 prefer_skip_nested_validation=True)
@_fill(of_fold=" of the fold", filename="MQ2007.rar", n_features="46")
def fetch_letor4(name="MQ2007", *, fold=1, subset="train", data_home=None,
                 download_if_missing=True, return_X_y_qid=False, dtype=np.float64,
                 mirror=None, progress=None, n_retries=3, delay=1.0):
    """Load a fold of LETOR 4.0's MQ2007 or MQ2008, from the files extracted from its RAR.

    =================  ==========================================
    Queries            about 1,700 (MQ2007), 800 (MQ2008)
    Features           46
    Grades             0, 1, 2
    Archive            MQ2007.rar / MQ2008.rar, no checksum published
    =================  ==========================================

    The supervised-ranking sets of LETOR 4.0, from the Million Query tracks of TREC 2007 and
    2008 on the Gov2 collection, in five folds ``{name}/Fold{k}/{train,vali,test}.txt``
    that put each query in one of five parts.

    Microsoft serves the archives from a shared folder, with no direct link, and as RAR,
    which Python's standard library cannot open. So: download ``MQ2007.rar`` from the LETOR
    4.0 page (or from a ``mirror``, which this function does), extract it in
    ``data_home/letor4/`` (``unrar x MQ2007.rar``, ``7z x MQ2007.rar`` or
    ``bsdtar -xf MQ2007.rar``), and call again: the files of the fold are parsed once, and
    cached. Until they are extracted, the error says what to run, where.

    Parameters
    ----------
    name : {"MQ2007", "MQ2008"}, default="MQ2007"
        The query set.

    fold : int, default=1
        The fold, 1 to 5.

    {parameters}

    {returns}

    Notes
    -----
    No checksum or exact size of the archives is published: nothing verifies them beyond
    their parsing. The cache records the size and time of the text files it was parsed
    from, and is rebuilt when they change.

    References
    ----------
    .. [1] T. Qin and T.-Y. Liu, "Introducing LETOR 4.0 Datasets", arXiv:1306.2597, 2013.

    Examples
    --------
    Files of the layout of ``MQ2007.rar``, here made up, extracted into the data folder:

    >>> import os, tempfile
    >>> from sklearn_rank.datasets import fetch_letor4
    >>> home = tempfile.mkdtemp()
    >>> fold = os.path.join(home, "letor4", "MQ2007", "Fold1")
    >>> os.makedirs(fold)
    >>> lines = {"train": "2 qid:10 1:0.5 46:0.1\\n0 qid:10 1:0.2\\n1 qid:11 2:0.7\\n",
    ...          "vali": "1 qid:12 1:0.4\\n0 qid:12 3:0.3\\n",
    ...          "test": "0 qid:13 5:0.1\\n2 qid:13 1:0.9\\n"}
    >>> for split, text in lines.items():
    ...     with open(os.path.join(fold, split + ".txt"), "w") as f:
    ...         _ = f.write(text)
    >>> train = fetch_letor4("MQ2007", fold=1, subset="train", data_home=home)
    >>> train.data.shape, train.target.tolist(), train.qid.tolist()
    ((3, 46), [2.0, 0.0, 1.0], [10, 10, 11])
    >>> X, y, qid = fetch_letor4("MQ2007", subset="all", data_home=home,
    ...                          return_X_y_qid=True)
    >>> qid.tolist()
    [10, 10, 11, 12, 12, 13, 13]
    """
    return _fetch_letor4(name, fold=fold, subset=subset, data_home=data_home,
                         download_if_missing=download_if_missing,
                         return_X_y_qid=return_X_y_qid, dtype=dtype, mirror=mirror,
                         progress=progress, n_retries=n_retries, delay=delay)


def _fetch_letor4(name, *, fold, subset, data_home, download_if_missing, return_X_y_qid,
                  dtype, mirror, progress, n_retries, delay):
    key = f"letor4-{name.lower()}"
    spec = DATASETS[key]
    dtype = _check_dtype(dtype)
    progress = _Progress(progress)
    folder = Path(get_data_home(data_home)) / spec.folder
    folder.mkdir(exist_ok=True)
    cache = folder / f"{name}_fold{fold}_{dtype.name}.npz"
    names = {split: spec.member.format(fold=fold, split=split) for split in _SPLITS}
    url = _url(spec.archive, mirror)
    archive = folder / spec.archive.filename

    def files():
        # extracted where the RAR lies, or one folder deeper (unrar into a folder of its own)
        for base in (folder, *sorted(p for p in folder.iterdir() if p.is_dir())):
            if all((base / n).is_file() for n in names.values()):
                return {split: base / n for split, n in names.items()}
        return None

    def available():
        return files() is not None

    def build():
        found = files()
        if found is None:
            found = _letor4_missing(spec, folder, archive, names, url, download_if_missing,
                                    n_retries, delay, progress)
        arrays, offsets = _parse(found, spec.n_features, dtype, progress, spec.title)
        arrays["_offsets"] = offsets
        return arrays, [_source_entry(p, str(p.relative_to(folder))) for p in found.values()]

    found = _load(spec, f"{key}/fold{fold}/{dtype.name}", cache, folder, subset, dtype, build,
                  available, progress, stacklevel=5)
    return _bunch(found, subset, return_X_y_qid, _describe(spec, fold, subset, url))


def _letor4_missing(spec, folder, archive, names, url, download_if_missing, n_retries, delay,
                    progress):
    """Raise the error that says how to get the extracted files (downloading the RAR from a
    mirror first when there is one)."""
    expected = str(folder / names["train"])
    extract = (f"Python's standard library cannot open RAR archives: extract it where it is "
               f"(`unrar x {archive.name}`, `7z x {archive.name}` or `bsdtar -xf "
               f"{archive.name}` in {str(folder)!r}) so that {expected!r} exists, then call "
               "again.")
    if archive.exists():
        raise OSError(f"{spec.title} is downloaded ({str(archive)!r}) but not extracted: "
                      + extract)
    if not download_if_missing:
        raise FetchError("{title} is not in {path!r} and {name[download_if_missing=False]}: "
                         "put {archive} from {page} there, extracted.", path=folder,
                         title=spec.title, archive=archive.name, page=spec.archive.page)
    if url is None:
        raise OSError(f"{spec.title} has no direct download link: download {archive.name} from "
                      f"{spec.archive.page} (or give a mirror), put it in {str(folder)!r} and "
                      f"extract it there, so that {expected!r} exists.")
    _download(spec.archive, url, archive, n_retries=n_retries, delay=delay, progress=progress)
    raise OSError(f"{spec.title} is downloaded to {str(archive)!r}; " + extract)


@validate_params(
    {"path": [str, os.PathLike], "set_id": [Interval(Integral, 1, 2, closed="both")]}
    | {k: _COMMON[k] for k in ("subset", "data_home", "return_X_y_qid", "dtype", "progress")},
    prefer_skip_nested_validation=True)
def load_yahoo_ltr(path, *, set_id=1, subset="train", data_home=None, return_X_y_qid=False,
                   dtype=np.float64, progress=None):
    """Load the Yahoo! Learning to Rank Challenge files that you downloaded.

    =================  ==========================================
    Queries            29,921 (set 1), 6,330 (set 2)
    Features           700 (ids 1-700; set 1 uses 519 of them)
    Grades             0 to 4
    =================  ==========================================

    Yahoo! distributes the data (Webscope C14) only to those who accept its data sharing
    agreement, so this function reads what you downloaded: ``path`` is the folder holding
    ``set1.train.txt``, ``set1.valid.txt`` and ``set1.test.txt`` (or ``set2.*``), which
    ``ltrc_yahoo.tar.bz2`` holds, or that ``.tar.bz2`` archive itself. The files are parsed
    once; the arrays are cached in ``data_home/yahoo_ltr/``, and parsed again when the
    files change.

    Parameters
    ----------
    path : str or path-like
        The folder of the text files, or the ``ltrc_yahoo.tar.bz2`` archive.

    set_id : {1, 2}, default=1
        Set 1 (the challenge's main track) or set 2 (its transfer track).

    subset : {"train", "vali", "test", "all"}, default="train"
        The split: ``set1.train.txt``, ``set1.valid.txt`` or ``set1.test.txt``, or the three,
        one after the other, with a ``split`` array naming each row's file.

    data_home : str or path-like, default=None
        Folder of the cache; None means ``SKLEARN_RANK_DATA`` or ``~/sklearn_rank_data``.

    return_X_y_qid : bool, default=False
        Whether to return the tuple ``(X, y, qid)`` rather than a Bunch.

    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Dtype of ``X``.

    progress : bool, default=None
        Whether to show the parsing on stderr; None shows it when stderr is a terminal.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``data`` (CSR matrix of shape (n_samples, 700)), ``target``, ``qid``,
        ``qid_offset``, ``split`` (with ``subset="all"``) and ``DESCR``, as
        :func:`fetch_mslr_web10k` returns.

    (X, y, qid) : tuple
        With ``return_X_y_qid=True``, instead of the Bunch.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist or lacks one of the three files of the set.

    References
    ----------
    .. [1] O. Chapelle and Y. Chang, "Yahoo! Learning to Rank Challenge Overview", JMLR
       Workshop and Conference Proceedings 14, 2011.

    Examples
    --------
    Files of the layout of ``ltrc_yahoo.tar.bz2``, here made up:

    >>> import os, tempfile
    >>> from sklearn_rank.datasets import load_yahoo_ltr
    >>> folder = tempfile.mkdtemp()
    >>> lines = {"train": "2 qid:1 1:0.5 700:0.1\\n0 qid:1 3:0.2\\n",
    ...          "valid": "1 qid:2 1:0.4\\n", "test": "0 qid:3 5:0.1\\n4 qid:3 9:0.9\\n"}
    >>> for split, text in lines.items():
    ...     with open(os.path.join(folder, f"set1.{split}.txt"), "w") as f:
    ...         _ = f.write(text)
    >>> data = load_yahoo_ltr(folder, subset="all", data_home=tempfile.mkdtemp())
    >>> data.data.shape, data.qid.tolist(), data.split.tolist()
    ((5, 700), [1, 1, 2, 3, 3], ['train', 'train', 'vali', 'test', 'test'])
    """
    spec = _YAHOO
    dtype = _check_dtype(dtype)
    progress = _Progress(progress)
    source = Path(os.fspath(path)).expanduser().resolve()
    names = {split: spec.member.format(fold=set_id, split=_YAHOO_SPLIT[split])
             for split in _SPLITS}
    if source.is_dir():
        missing = [n for n in names.values() if not (source / n).is_file()]
        if missing:
            raise FileNotFoundError(
                f"{str(source)!r} has no {', '.join(missing)}: give the folder that holds the "
                f"set{set_id}.*.txt files of ltrc_yahoo.tar.bz2, or that archive.")
        sources = [source / n for n in names.values()]
    elif source.is_file():
        sources = [source]
    else:
        raise FileNotFoundError(f"No Yahoo! LTR files at {str(source)!r}: give the folder of "
                                "set1.train.txt..., or ltrc_yahoo.tar.bz2.")
    folder = Path(get_data_home(data_home)) / spec.folder
    folder.mkdir(exist_ok=True)
    cache = folder / f"set{set_id}_{dtype.name}.npz"

    def build():
        with tempfile.TemporaryDirectory(dir=folder, prefix="extract.") as scratch:
            if source.is_dir():
                files = {split: source / n for split, n in names.items()}
            else:
                progress.note(f"{spec.title}: extracting {', '.join(names.values())}")
                files = _extract(source, names, Path(scratch))
            arrays, offsets = _parse(files, spec.n_features, dtype, progress,
                                     spec.title)
        arrays["_offsets"] = offsets
        return arrays, [_source_entry(p, str(p)) for p in sources]

    found = _load(spec, f"yahoo/set{set_id}/{dtype.name}/{source}", cache, Path("/"), subset,
                  dtype, build, lambda: True, progress, stacklevel=4)
    descr = (f"{spec.title}, set {set_id}, subset {subset!r}.\nSource: {source} (page: "
             f"{spec.archive.page}).\nLicence: {spec.licence}.")
    return _bunch(found, subset, return_X_y_qid, descr)


#: The fetchers by the names of :data:`DATASETS` (``"mslr-web10k"``...), for the command line's
#: ``--data NAME:FOLD``; Istella-S takes no fold.
FETCHERS = {
    "mslr-web10k": fetch_mslr_web10k,
    "mslr-web30k": fetch_mslr_web30k,
    "istella-s": fetch_istella_s,
    "letor4-mq2007": partial(fetch_letor4, "MQ2007"),
    "letor4-mq2008": partial(fetch_letor4, "MQ2008"),
}
