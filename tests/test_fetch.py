"""Fetchers of the public data sets, against a real HTTP server on loopback.

The machines that run the tests cannot reach the publishers, so each test builds small
archives with the layout of the real ones (MSLR's ``Fold{k}/{train,vali,test}.txt`` in a zip,
Istella's ``sample/*.txt`` in a tar.gz, LETOR 4.0's ``MQ2007/Fold{k}/*.txt``, Yahoo!'s
``set1.*.txt``) and serves them from a ``ThreadingHTTPServer`` whose handler implements
``Range``, can cut a response short and can ignore ``Range``. The download code under test
is the real one (urllib over a socket); only the table of known checksums is pointed at the
test archives. Expected arrays come from scikit-learn's own SVMlight parser.
"""

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

from sklearn_rank.datasets import (
    _fetch,
    fetch_istella_s,
    fetch_letor4,
    fetch_mslr_web10k,
    fetch_mslr_web30k,
    get_data_home,
    load_yahoo_ltr,
)
from sklearn_rank.utils._param_validation import InvalidParameterError

# -- The test server ------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    """GET of ``/<name>`` from ``server.files``, with ``Range: bytes=N-`` when
    ``server.ranges``; ``server.cuts[name]`` lists byte counts after which the next responses
    stop (the connection closes with the Content-Length unmet)."""

    def do_GET(self):
        server = self.server
        name = self.path.lstrip("/")
        asked = self.headers.get("Range")
        # logged before anything is sent, so that the client cannot see the answer first
        if name in server.redirects:
            server.log.append((name, asked, 302, 0))
            self.send_response(302)
            self.send_header("Location", server.redirects[name])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if name in server.endless:  # no Content-Length: bytes until the client hangs up
            server.log.append((name, asked, 200, None))
            self._endless(*server.endless[name])
            return
        if name not in server.files:
            server.log.append((name, asked, 404, 0))
            self.send_error(404)
            return
        data = server.files[name]
        match = re.fullmatch(r"bytes=(\d+)-", asked or "")
        start = int(match[1]) if server.ranges and match else 0
        if start and server.misplaced:  # a broken server: 206, from the wrong byte
            start = max(start - 10, 1)
        if start >= len(data) > 0:
            server.log.append((name, asked, 416, 0))
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{len(data)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = data[start:]
        cuts = server.cuts.get(name)
        sent = body[:cuts.pop(0)] if cuts else body
        server.log.append((name, asked, 206 if start else 200, len(sent)))
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        # the client may hang up first, e.g. on a file of the wrong size
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(sent)

    def _endless(self, chunk, pause, most):
        """``chunk`` after ``chunk``, a pause of ``pause`` seconds between them, without a
        Content-Length (HTTP/1.0: the body ends with the connection), until the client hangs
        up or ``most`` bytes are sent (a bound for the test, which the client never sees)."""
        self.send_response(200)
        self.end_headers()
        sent = 0
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            while sent < most and not self.server.stopping.is_set():
                self.wfile.write(chunk)
                self.wfile.flush()
                sent += len(chunk)
                self.server.stopping.wait(pause)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    """A loopback HTTP server; ``server.url`` is the mirror that serves ``server.files``."""
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.files, httpd.cuts, httpd.log, httpd.ranges, httpd.misplaced = {}, {}, [], True, False
    httpd.redirects, httpd.endless, httpd.stopping = {}, {}, threading.Event()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield httpd
    httpd.stopping.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join()


# -- Archives with the layout of the real ones ----------------------------------------------

def svmlight(rng, qids, n_features, comment=False):
    """LETOR lines for the queries ``qids``: 2-6 documents each, features 1-based, some
    omitted, grades 0-4."""
    lines = []
    for q in qids:
        for doc in range(rng.integers(2, 7)):
            features = sorted(rng.choice(np.arange(1, n_features + 1), size=min(5, n_features),
                                         replace=False))
            # every third feature a small count, often an explicit 0 (as in MSLR)
            values = [rng.integers(0, 3) if f % 3 == 0 else rng.integers(1, 999) / 100
                      for f in features]
            fields = " ".join(f"{f}:{v:g}" for f, v in zip(features, values))
            tail = f" #docid = GX{q:03d}-{doc:02d}" if comment else ""
            lines.append(f"{rng.integers(0, 5)} qid:{q} {fields}{tail}\n")
    return "".join(lines).encode()


def folds(rng, n_features, first_qid=1, comment=False):
    """``{fold: {split: text}}`` of five parts S1-S5 rotated as MSLR and LETOR 4.0 do: fold k
    trains on S(k), S(k+1), S(k+2), validates on S(k+3) and tests on S(k+4)."""
    parts = [svmlight(rng, range(first_qid + 3 * i, first_qid + 3 * i + 3), n_features,
                      comment) for i in range(5)]
    out = {}
    for k in range(1, 6):
        order = [parts[(k - 1 + i) % 5] for i in range(5)]
        out[k] = {"train": b"".join(order[:3]), "vali": order[3], "test": order[4]}
    return out


def mslr_zip(texts):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for k, splits in texts.items():
            for split, text in splits.items():
                bundle.writestr(f"Fold{k}/{split}.txt", text)
    return buffer.getvalue()


def tar_bytes(members, mode="w:gz"):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as bundle:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            bundle.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def reference(text, n_features, dense=True):
    """X (dense), y, qid of an SVMlight text, by scikit-learn's parser."""
    X, y, qid = load_svmlight_file(io.BytesIO(text), n_features=n_features, zero_based=False,
                                   query_id=True)
    return X.toarray() if dense else X, y, qid


def assert_loaded(data, text, n_features):
    X, y, qid = reference(text, n_features, dense=False)
    # the same values, and the same stored entries: a 0 written in the file stays stored
    assert data.data.nnz == X.nnz
    np.testing.assert_array_equal(data.data.toarray(), X.toarray())
    np.testing.assert_array_equal(data.target, y)
    np.testing.assert_array_equal(data.qid, qid)


def publish(monkeypatch, key, blob, **changes):
    """Point the known size and SHA-256 of ``key``'s archive at ``blob`` (and ``changes``)."""
    spec = _fetch.DATASETS[key]
    known = {"size": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
    archive = replace(spec.archive, **(known | changes))
    monkeypatch.setitem(_fetch.DATASETS, key, replace(spec, archive=archive))


@pytest.fixture
def mslr(server, monkeypatch):
    """An MSLR-WEB10K-shaped zip, served and published: ``(texts, blob)``."""
    texts = folds(np.random.default_rng(0), 136)
    blob = mslr_zip(texts)
    server.files["MSLR-WEB10K.zip"] = blob
    publish(monkeypatch, "mslr-web10k", blob)
    return texts, blob


def archive_path(home, key):
    spec = _fetch.DATASETS[key]
    return Path(home) / spec.folder / spec.archive.filename


# -- Downloads ------------------------------------------------------------------------------

def test_download_parse_and_cache(tmp_path, server, mslr):
    texts, blob = mslr
    home = tmp_path / "home"
    train = fetch_mslr_web10k(fold=2, subset="train", data_home=home, mirror=server.url)
    assert_loaded(train, texts[2]["train"], 136)
    assert train.qid_offset == {"train": 0, "vali": 0, "test": 0}
    assert "MSLR-WEB10K" in train.DESCR and "SHA-256" in train.DESCR
    archive = archive_path(home, "mslr-web10k")
    assert archive.read_bytes() == blob
    assert not archive.with_name(archive.name + ".part").exists()
    assert [entry[:3] for entry in server.log] == [("MSLR-WEB10K.zip", None, 200)]

    # the other splits of the fold come from its cache: no request, and no archive needed
    archive.unlink()
    server.shutdown()
    for split in ("vali", "test"):
        X, y, qid = fetch_mslr_web10k(fold=2, subset=split, data_home=home,
                                      download_if_missing=False, return_X_y_qid=True)
        X_ref, y_ref, qid_ref = reference(texts[2][split], 136)
        np.testing.assert_array_equal(X.toarray(), X_ref)
        np.testing.assert_array_equal(y, y_ref)
        np.testing.assert_array_equal(qid, qid_ref)
    pooled = fetch_mslr_web10k(fold=2, subset="all", data_home=home, download_if_missing=False)
    assert_loaded(pooled, b"".join(texts[2][s] for s in ("train", "vali", "test")), 136)
    sizes = [len(reference(texts[2][s], 136)[1]) for s in ("train", "vali", "test")]
    np.testing.assert_array_equal(pooled.split, np.repeat(["train", "vali", "test"], sizes))
    # the published ids of MSLR's parts are distinct: 15 queries in all, as built
    assert len(np.unique(pooled.qid)) == 15


def test_mirror_from_environment_and_publisher_link(tmp_path, server, mslr, monkeypatch):
    texts, blob = mslr
    monkeypatch.setenv("SKLEARN_RANK_MIRROR", server.url + "/")
    data = fetch_mslr_web10k(fold=5, subset="test", data_home=tmp_path / "a")
    assert_loaded(data, texts[5]["test"], 136)
    # without a mirror, the archive's own link
    monkeypatch.delenv("SKLEARN_RANK_MIRROR")
    publish(monkeypatch, "mslr-web10k", blob, url=server.url + "/MSLR-WEB10K.zip")
    data = fetch_mslr_web10k(fold=1, subset="vali", data_home=tmp_path / "b")
    assert_loaded(data, texts[1]["vali"], 136)
    assert len(server.log) == 2


def test_folder_as_mirror(tmp_path, mslr):
    texts, blob = mslr
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "MSLR-WEB10K.zip").write_bytes(blob)
    data = fetch_mslr_web10k(fold=3, subset="train", data_home=tmp_path / "home",
                             mirror=mirror)
    assert_loaded(data, texts[3]["train"], 136)


def test_truncated_download_resumes_within_the_call(tmp_path, server, mslr):
    texts, blob = mslr
    cut = len(blob) // 3
    server.cuts["MSLR-WEB10K.zip"] = [cut]
    data = fetch_mslr_web10k(subset="test", data_home=tmp_path, mirror=server.url,
                             n_retries=1, delay=0)
    assert_loaded(data, texts[1]["test"], 136)
    assert [entry[1:] for entry in server.log] == [
        (None, 200, cut), (f"bytes={cut}-", 206, len(blob) - cut)]
    assert archive_path(tmp_path, "mslr-web10k").read_bytes() == blob


def test_interrupted_download_resumes_at_the_next_call(tmp_path, server, mslr):
    texts, blob = mslr
    cut = len(blob) // 2
    server.cuts["MSLR-WEB10K.zip"] = [cut]
    with pytest.raises(OSError, match=rf"stopped at {cut} bytes .*next call resumes") as info:
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url, n_retries=0)
    assert "\n" not in str(info.value)
    archive = archive_path(tmp_path, "mslr-web10k")
    part = archive.with_name(archive.name + ".part")
    # the part is kept, and never taken for the archive
    assert not archive.exists()
    assert part.read_bytes() == blob[:cut]
    with pytest.raises(OSError, match="download_if_missing=False.*will be resumed"):
        fetch_mslr_web10k(data_home=tmp_path, download_if_missing=False)

    data = fetch_mslr_web10k(subset="train", data_home=tmp_path, mirror=server.url,
                             n_retries=0)
    assert_loaded(data, texts[1]["train"], 136)
    assert server.log[-1][1:] == (f"bytes={cut}-", 206, len(blob) - cut)
    assert archive.read_bytes() == blob and not part.exists()


def test_server_without_range_restarts_from_zero(tmp_path, server, mslr):
    texts, blob = mslr
    server.ranges = False
    server.cuts["MSLR-WEB10K.zip"] = [len(blob) // 4, len(blob) // 2]
    data = fetch_mslr_web10k(subset="vali", data_home=tmp_path, mirror=server.url,
                             n_retries=2, delay=0)
    assert_loaded(data, texts[1]["vali"], 136)
    # asked to resume, the server sent the whole file each time; the part was replaced
    assert [entry[1:3] for entry in server.log] == [
        (None, 200), (f"bytes={len(blob) // 4}-", 200), (f"bytes={len(blob) // 2}-", 200)]
    assert archive_path(tmp_path, "mslr-web10k").read_bytes() == blob


def test_misplaced_range_restarts_from_zero(tmp_path, server, mslr):
    texts, blob = mslr
    server.misplaced = True
    server.cuts["MSLR-WEB10K.zip"] = [len(blob) // 2]
    data = fetch_mslr_web10k(subset="vali", data_home=tmp_path, mirror=server.url,
                             n_retries=1, delay=0)
    assert_loaded(data, texts[1]["vali"], 136)
    half = len(blob) // 2
    assert [entry[1:3] for entry in server.log] == [
        (None, 200), (f"bytes={half}-", 206), (None, 200)]
    assert archive_path(tmp_path, "mslr-web10k").read_bytes() == blob


def test_part_as_long_as_the_file_is_not_downloaded_again(tmp_path, server, mslr):
    texts, blob = mslr
    archive = archive_path(tmp_path, "mslr-web10k")
    archive.parent.mkdir(parents=True)
    archive.with_name(archive.name + ".part").write_bytes(blob)
    data = fetch_mslr_web10k(subset="test", data_home=tmp_path, mirror=server.url)
    assert_loaded(data, texts[1]["test"], 136)
    assert server.log == []


@pytest.mark.parametrize("extra", [0, 5], ids=["whole", "longer"])
def test_resume_past_the_end_of_a_file_of_unknown_size(tmp_path, server, extra):
    # LETOR 4.0 has no published size: a part as long as the file gets a 416 and is whole; a
    # longer one (another file) gets a 416 too, and is downloaded again
    blob = b"Rar!\x1a\x07\x00 not really a RAR archive"
    server.files["MQ2007.rar"] = blob
    archive = archive_path(tmp_path, "letor4-mq2007")
    archive.parent.mkdir(parents=True)
    archive.with_name("MQ2007.rar.part").write_bytes(blob + b"x" * extra)
    with pytest.raises(OSError, match="downloaded to .*MQ2007.rar.*unrar x MQ2007.rar"):
        fetch_letor4("MQ2007", data_home=tmp_path, mirror=server.url, n_retries=0)
    asked = f"bytes={len(blob) + extra}-"
    assert server.log == [("MQ2007.rar", asked, 416, 0)] + (
        [("MQ2007.rar", None, 200, len(blob))] if extra else [])
    assert archive.read_bytes() == blob


def test_wrong_checksum_removes_the_download(tmp_path, server, mslr, monkeypatch):
    texts, blob = mslr
    publish(monkeypatch, "mslr-web10k", blob, sha256="0" * 64)
    with pytest.raises(OSError, match=r"^The SHA-256 of the download of MSLR-WEB10K.zip .* "
                                      r"not the published archive's 0{64}.*was removed"):
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url)
    folder = archive_path(tmp_path, "mslr-web10k").parent
    assert sorted(p.name for p in folder.iterdir()) == []


def test_a_file_of_the_wrong_size_is_refused_before_download(tmp_path, server, mslr,
                                                             monkeypatch):
    texts, blob = mslr
    publish(monkeypatch, "mslr-web10k", blob, size=len(blob) + 1)
    with pytest.raises(OSError, match=rf"sends a file of {len(blob)} bytes, not the "
                                      rf"{len(blob) + 1} bytes"):
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url, n_retries=3)
    assert len(server.log) == 1  # not retried
    assert list(archive_path(tmp_path, "mslr-web10k").parent.iterdir()) == []


def test_missing_on_the_server_is_one_clear_error(tmp_path, server, mslr):
    with pytest.raises(OSError, match="Could not download MSLR-WEB30K.zip .*HTTP 404") as info:
        fetch_mslr_web30k(data_home=tmp_path, mirror=server.url)
    assert "\n" not in str(info.value)
    assert len(server.log) == 1


def test_nothing_cached_and_no_download_is_one_clear_error(tmp_path, server):
    with pytest.raises(OSError, match=r"^MSLR-WEB10K is not in .*download_if_missing=False: "
                                      r"call again with download_if_missing=True to download "
                                      r"MSLR-WEB10K.zip \(1.23 GB\)") as info:
        fetch_mslr_web10k(data_home=tmp_path, download_if_missing=False, mirror=server.url)
    assert "\n" not in str(info.value)
    assert server.log == []


def test_archive_put_in_place_by_hand(tmp_path, mslr):
    texts, blob = mslr
    archive = archive_path(tmp_path, "mslr-web10k")
    archive.parent.mkdir(parents=True)
    archive.write_bytes(blob)
    data = fetch_mslr_web10k(fold=4, subset="train", data_home=tmp_path,
                             download_if_missing=False)
    assert_loaded(data, texts[4]["train"], 136)


def test_wrong_archive_put_in_place_is_refused_and_kept(tmp_path, mslr):
    texts, blob = mslr
    archive = archive_path(tmp_path, "mslr-web10k")
    archive.parent.mkdir(parents=True)
    other = blob[:-1] + bytes([blob[-1] ^ 1])
    archive.write_bytes(other)
    with pytest.raises(OSError, match="The SHA-256 of .*MSLR-WEB10K.zip.* delete it"):
        fetch_mslr_web10k(data_home=tmp_path)
    assert archive.read_bytes() == other


def test_concurrent_fetches_download_and_parse_once(tmp_path, server, mslr):
    texts, blob = mslr
    results, errors = [], []

    def fetch(subset):
        try:
            results.append((subset, fetch_mslr_web10k(subset=subset, data_home=tmp_path,
                                                      mirror=server.url)))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=fetch, args=(s,)) for s in ("train", "test", "vali")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for subset, data in results:
        assert_loaded(data, texts[1][subset], 136)
    assert len(server.log) == 1


def test_download_stops_as_soon_as_it_passes_the_published_size(tmp_path, server, mslr):
    texts, blob = mslr
    chunk = b"x" * 65536
    del server.files["MSLR-WEB10K.zip"]
    server.endless["MSLR-WEB10K.zip"] = (chunk, 0, 256 * 2**20)  # no Content-Length
    start = time.monotonic()
    with pytest.raises(OSError, match=rf"^Could not download MSLR-WEB10K.zip from .*: the "
                                      rf"server sends more than the {len(blob)} bytes of the "
                                      r"published archive\. Download it by hand") as info:
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url, n_retries=3, delay=0)
    assert time.monotonic() - start < 20
    assert "\n" not in str(info.value)
    assert len(server.log) == 1  # not retried
    folder = archive_path(tmp_path, "mslr-web10k").parent
    assert sorted(p.name for p in folder.iterdir()) == []  # nothing kept


def test_download_of_unknown_size_is_capped(tmp_path, server, monkeypatch):
    # LETOR 4.0 publishes no size; the server sends no Content-Length
    monkeypatch.setattr(_fetch, "_MAX_UNKNOWN_SIZE", 2**20)
    server.endless["MQ2007.rar"] = (b"x" * 65536, 0, 256 * 2**20)
    with pytest.raises(OSError, match=r"^Could not download MQ2007.rar from .*: the server "
                                      r"sends more than 1048576 bytes, the most a download of "
                                      r"unknown size may take"):
        fetch_letor4("MQ2007", data_home=tmp_path, mirror=server.url, n_retries=2, delay=0)
    assert len(server.log) == 1
    assert list(archive_path(tmp_path, "letor4-mq2007").parent.iterdir()) == []


def test_trickling_server_is_cut_and_the_part_kept(tmp_path, server, mslr, monkeypatch):
    # one byte every 50 ms never trips the timeout of 1 s between bytes
    monkeypatch.setattr(_fetch, "_TIMEOUT", 1)
    del server.files["MSLR-WEB10K.zip"]
    server.endless["MSLR-WEB10K.zip"] = (b"x", 0.05, 600)  # 30 s in all, at most
    start = time.monotonic()
    with pytest.raises(OSError, match=r"^The download of MSLR-WEB10K.zip from .* stopped at "
                                      r"\d+ bytes \(the transfer went slower than 1024 bytes "
                                      r"per second for 1 seconds\); the part is kept in "):
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url, n_retries=1, delay=0)
    assert time.monotonic() - start < 10
    assert len(server.log) == 2  # retried once
    archive = archive_path(tmp_path, "mslr-web10k")
    assert 0 < archive.with_name(archive.name + ".part").stat().st_size < 100


def test_download_time_is_bounded(tmp_path, server, mslr, monkeypatch):
    monkeypatch.setattr(_fetch, "_MIN_RATE", 1)
    monkeypatch.setattr(_fetch, "_MAX_SECONDS", 1.5)
    del server.files["MSLR-WEB10K.zip"]
    server.endless["MSLR-WEB10K.zip"] = (b"x" * 100, 0.05, 60000)  # 30 s in all, at most
    start = time.monotonic()
    with pytest.raises(OSError, match=r"^The download of MSLR-WEB10K.zip from .* took more "
                                      r"than 1.5 seconds and stopped at \d+ bytes; the part is "
                                      r"kept in .* and the next call resumes it\.$"):
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url, n_retries=5, delay=0)
    assert time.monotonic() - start < 10
    assert len(server.log) == 1


@pytest.mark.parametrize("location", ["file:///etc/passwd", "/MSLR-WEB10K.zip"],
                         ids=["to a file", "loop"])
def test_refused_redirect_is_not_retried_and_keeps_nothing(tmp_path, server, mslr, location):
    server.redirects["MSLR-WEB10K.zip"] = location
    with pytest.raises(OSError, match=r"^Could not download MSLR-WEB10K.zip from .*: HTTP 30"
                                      r"2 .*Download it by hand") as info:
        fetch_mslr_web10k(data_home=tmp_path, mirror=server.url, n_retries=3, delay=0)
    assert ".part" not in str(info.value)
    # one call of urlopen (which follows a loop 4 times), not one per retry
    assert len(server.log) == (1 if location.startswith("file") else 5)
    assert list(archive_path(tmp_path, "mslr-web10k").parent.iterdir()) == []


def test_missing_file_of_a_folder_mirror_is_not_retried(tmp_path, mslr):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with pytest.raises(OSError, match=r"^Could not download MSLR-WEB10K.zip from file:.*No "
                                      r"such file") as info:
        fetch_mslr_web10k(data_home=tmp_path / "home", mirror=mirror, n_retries=3, delay=30)
    assert ".part" not in str(info.value)


# -- The cache ------------------------------------------------------------------------------

def corrupt_array(path):
    """Flip a byte inside the values of the train split's feature array."""
    with zipfile.ZipFile(path) as bundle:
        info = bundle.getinfo("train.data.npy")
    raw = bytearray(path.read_bytes())
    name_length, extra_length = np.frombuffer(raw[info.header_offset + 26:
                                                  info.header_offset + 30], dtype="<u2")
    start = info.header_offset + 30 + int(name_length) + int(extra_length) + 128
    raw[start + 8] ^= 0xFF
    path.write_bytes(bytes(raw))


def restamp(path, change):
    """Write the cache again with its stamp ``change(stamp)``: any JSON."""
    with np.load(path) as npz:
        arrays = dict(npz)
    arrays["stamp"] = np.array(json.dumps(change(json.loads(str(arrays["stamp"])))))
    np.savez(path, **arrays)


def source_named(name):
    """A stamp whose source is ``name``: of the same size as that file (0 for a device),
    another time, so that it is hashed to tell whether it changed."""
    return lambda stamp: {**stamp, "sources": [
        {"name": name, "size": 0, "mtime_ns": 1, "sha256": "0" * 64}]}


CORRUPTIONS = {
    "truncated": lambda path: path.write_bytes(path.read_bytes()[:path.stat().st_size // 2]),
    "flipped value": corrupt_array,
    "not a zip": lambda path: path.write_bytes(b"garbage" * 100),
    "stamp a list": lambda path: restamp(path, lambda stamp: [stamp]),
    "stamp without sources": lambda path: restamp(path, lambda stamp: {**stamp,
                                                                       "sources": None}),
    "source outside": lambda path: restamp(path, source_named("../outside.txt")),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_corrupt_cache_is_rebuilt_with_a_warning(tmp_path, server, mslr, corrupt):
    texts, blob = mslr
    fetch_mslr_web10k(subset="train", data_home=tmp_path, mirror=server.url)
    cache = tmp_path / "mslr_web10k" / "fold1_float64.npz"
    corrupt(cache)
    with pytest.warns(UserWarning, match=r"^The cache .*fold1_float64.npz' is corrupt "
                                         r"\(.+\); rebuilding it from the source") as info:
        data = fetch_mslr_web10k(subset="train", data_home=tmp_path, mirror=server.url)
    assert "unsafe" not in str(info[0].message)  # no advice to load a cache as a pickle
    assert_loaded(data, texts[1]["train"], 136)
    assert len(server.log) == 1  # rebuilt from the archive, not downloaded again
    # rebuilt whole: read again without a warning (filterwarnings = error)
    assert_loaded(fetch_mslr_web10k(subset="train", data_home=tmp_path), texts[1]["train"],
                  136)


HASH_THE_CACHE = """
import sys
from sklearn_rank.datasets import fetch_mslr_web10k

try:
    fetch_mslr_web10k(subset="train", data_home=sys.argv[1], download_if_missing=False)
except OSError as exc:
    print(exc)
"""


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_cache_naming_a_device_or_a_fifo_is_not_hashed(tmp_path, server, mslr, source):
    fetch_mslr_web10k(subset="train", data_home=tmp_path, mirror=server.url)
    folder = tmp_path / "mslr_web10k"
    archive_path(tmp_path, "mslr-web10k").unlink()  # the cache is all there is
    if source == "fifo":
        os.mkfifo(folder / "fifo")
    restamp(folder / "fold1_float64.npz", source_named(source))
    # in a process of its own, ended at 60 s: hashing them would never end
    got = subprocess.run([sys.executable, "-c", HASH_THE_CACHE, str(tmp_path)],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("The cache ")
    assert f"is corrupt (its stamp names the source {source!r}, " in got.stdout
    assert "delete the file and call again" in got.stdout


def test_corrupt_cache_without_its_source_names_the_file(tmp_path, server, mslr):
    fetch_mslr_web10k(subset="test", data_home=tmp_path, mirror=server.url)
    archive_path(tmp_path, "mslr-web10k").unlink()
    cache = tmp_path / "mslr_web10k" / "fold1_float64.npz"
    corrupt_array(cache)
    with pytest.raises(OSError, match=r"^The cache .*fold1_float64.npz' is corrupt .*delete "
                                      r"the file and call again") as info:
        fetch_mslr_web10k(subset="train", data_home=tmp_path, download_if_missing=False)
    assert "\n" not in str(info.value)


def test_cache_of_another_format_is_rebuilt_silently(tmp_path, server, mslr):
    texts, blob = mslr
    fetch_mslr_web10k(subset="train", data_home=tmp_path, mirror=server.url)
    cache = tmp_path / "mslr_web10k" / "fold1_float64.npz"
    with np.load(cache) as npz:
        arrays = dict(npz)
    arrays["stamp"] = np.array(str(arrays["stamp"]).replace('"format": 1', '"format": 0'))
    np.savez(cache, **arrays)
    before = cache.stat().st_mtime_ns
    data = fetch_mslr_web10k(subset="train", data_home=tmp_path)
    assert_loaded(data, texts[1]["train"], 136)
    assert cache.stat().st_mtime_ns != before


def test_float32_has_its_own_cache(tmp_path, server, mslr):
    texts, blob = mslr
    data = fetch_mslr_web10k(subset="train", data_home=tmp_path, mirror=server.url,
                             dtype=np.float32)
    assert data.data.dtype == np.float32
    X, _, _ = reference(texts[1]["train"], 136)
    np.testing.assert_array_equal(data.data.toarray(), X.astype(np.float32))
    assert (tmp_path / "mslr_web10k" / "fold1_float32.npz").exists()
    assert fetch_mslr_web10k(data_home=tmp_path).data.dtype == np.float64


# -- The other data sets --------------------------------------------------------------------

def test_istella_s_tar_layout(tmp_path, server, monkeypatch):
    rng = np.random.default_rng(1)
    texts = {split: svmlight(rng, range(start, start + 4), 220)
             for split, start in (("train", 1), ("vali", 5), ("test", 9))}
    blob = tar_bytes({"README": b"Istella LETOR\n"}
                     | {f"sample/{split}.txt": text for split, text in texts.items()})
    server.files["istella-s-letor.tar.gz"] = blob
    publish(monkeypatch, "istella-s", blob)
    data = fetch_istella_s(subset="all", data_home=tmp_path, mirror=server.url)
    assert_loaded(data, b"".join(texts.values()), 220)
    assert (tmp_path / "istella_s" / "sample_float64.npz").exists()


def test_archive_without_the_fold_is_refused(tmp_path, server, monkeypatch):
    rng = np.random.default_rng(6)
    blob = tar_bytes({"sample/train.txt": svmlight(rng, [1], 220),
                      "sample/test.txt": svmlight(rng, [2], 220)})
    server.files["istella-s-letor.tar.gz"] = blob
    publish(monkeypatch, "istella-s", blob)
    with pytest.raises(OSError, match="istella-s-letor.tar.gz' holds no 'sample/vali.txt'"):
        fetch_istella_s(data_home=tmp_path, mirror=server.url)


def letor4_folder(home, name, texts):
    for k, splits in texts.items():
        fold = Path(home) / "letor4" / name / f"Fold{k}"
        fold.mkdir(parents=True)
        for split, text in splits.items():
            (fold / f"{split}.txt").write_bytes(text)


def test_letor4_from_extracted_files(tmp_path):
    texts = folds(np.random.default_rng(2), 46, first_qid=10002, comment=True)
    letor4_folder(tmp_path, "MQ2008", texts)
    data = fetch_letor4("MQ2008", fold=3, subset="all", data_home=tmp_path,
                        download_if_missing=False)
    assert_loaded(data, b"".join(texts[3][s] for s in ("train", "vali", "test")), 46)
    # an edited file is parsed again
    edited = texts[3]["test"] + b"2 qid:99999 1:0.5 46:1\n"
    (tmp_path / "letor4" / "MQ2008" / "Fold3" / "test.txt").write_bytes(edited)
    data = fetch_letor4("MQ2008", fold=3, subset="test", data_home=tmp_path)
    assert_loaded(data, edited, 46)


def test_letor4_files_linked_into_the_folder_are_read_from_the_cache(tmp_path):
    # files kept elsewhere, linked into the data set's folder: the cache's sources are
    # under the folder as named, and the cache is read without a warning (errors here)
    texts = folds(np.random.default_rng(2), 46, first_qid=10002)
    letor4_folder(tmp_path / "elsewhere", "MQ2008", texts)
    (tmp_path / "home" / "letor4").mkdir(parents=True)
    (tmp_path / "home" / "letor4" / "MQ2008").symlink_to(
        tmp_path / "elsewhere" / "letor4" / "MQ2008")
    for _ in range(2):
        data = fetch_letor4("MQ2008", fold=2, subset="vali", data_home=tmp_path / "home",
                            download_if_missing=False)
        assert_loaded(data, texts[2]["vali"], 46)


def test_fetchers_by_name(tmp_path):
    # the names the command line's --data takes
    assert set(_fetch.FETCHERS) == set(_fetch.DATASETS)
    texts = folds(np.random.default_rng(7), 46)
    letor4_folder(tmp_path, "MQ2008", {2: texts[2]})
    X, y, qid = _fetch.FETCHERS["letor4-mq2008"](fold=2, subset="test", data_home=tmp_path,
                                                 return_X_y_qid=True)
    np.testing.assert_array_equal(qid, reference(texts[2]["test"], 46)[2])


def test_letor4_extracted_one_folder_deeper(tmp_path):
    texts = folds(np.random.default_rng(3), 46)
    letor4_folder(tmp_path / "letor4", "MQ2007", {1: texts[1]})  # letor4/letor4/MQ2007/...
    data = fetch_letor4(fold=1, subset="vali", data_home=tmp_path)
    assert_loaded(data, texts[1]["vali"], 46)


def test_letor4_rar_not_extracted(tmp_path):
    folder = tmp_path / "letor4"
    folder.mkdir()
    (folder / "MQ2007.rar").write_bytes(b"Rar!")
    with pytest.raises(OSError, match=r"downloaded .* but not extracted: Python's standard "
                                      r"library cannot open RAR archives: .*`unrar x "
                                      r"MQ2007.rar`.*MQ2007/Fold1/train.txt") as info:
        fetch_letor4("MQ2007", data_home=tmp_path)
    assert "\n" not in str(info.value)


def test_letor4_without_mirror_says_where_to_get_it(tmp_path, server):
    with pytest.raises(OSError, match="no direct download link: download MQ2008.rar from "
                                      "https://www.microsoft.com/"):
        fetch_letor4("MQ2008", data_home=tmp_path)
    with pytest.raises(OSError, match="MQ2008 is not in .* download_if_missing=False"):
        fetch_letor4("MQ2008", data_home=tmp_path, download_if_missing=False)
    server.files["MQ2008.rar"] = b"Rar! made up"
    with pytest.raises(OSError, match="downloaded to .*MQ2008.rar.*`7z x MQ2008.rar`"):
        fetch_letor4("MQ2008", data_home=tmp_path, mirror=server.url)
    assert (tmp_path / "letor4" / "MQ2008.rar").read_bytes() == b"Rar! made up"


def test_published_ids_repeated_across_splits_are_shifted(tmp_path):
    rng = np.random.default_rng(4)
    texts = {split: svmlight(rng, [3, 7, 120], 46) for split in ("train", "vali", "test")}
    letor4_folder(tmp_path, "MQ2007", {2: texts})
    data = fetch_letor4(fold=2, subset="all", data_home=tmp_path)
    step = 10 ** len(str(120 - 3 + 1))
    assert data.qid_offset == {"train": 0, "vali": step, "test": 2 * step}
    assert "shifted by qid_offset" in data.DESCR
    published = np.concatenate([reference(texts[s], 46)[2] for s in ("train", "vali", "test")])
    offsets = np.array([data.qid_offset[s] for s in data.split])
    np.testing.assert_array_equal(data.qid - offsets, published)
    assert len(np.unique(data.qid)) == 9
    # the same ids whichever subset is asked for
    test = fetch_letor4(fold=2, subset="test", data_home=tmp_path)
    np.testing.assert_array_equal(test.qid, reference(texts["test"], 46)[2] + 2 * step)


def yahoo_texts(rng, set_id):
    return {f"set{set_id}.{name}.txt": svmlight(rng, range(start, start + 3), 700)
            for name, start in (("train", 1), ("valid", 4), ("test", 7))}


def test_yahoo_from_folder_and_from_archive(tmp_path):
    rng = np.random.default_rng(5)
    texts = yahoo_texts(rng, 1) | yahoo_texts(rng, 2)
    folder = tmp_path / "ltrc_yahoo"
    folder.mkdir()
    for name, text in texts.items():
        (folder / name).write_bytes(text)
    data = load_yahoo_ltr(folder, subset="vali", data_home=tmp_path / "home")
    assert_loaded(data, texts["set1.valid.txt"], 700)
    X, y, qid = load_yahoo_ltr(folder, set_id=2, subset="test", data_home=tmp_path / "home",
                               return_X_y_qid=True)
    np.testing.assert_array_equal(X.toarray(), reference(texts["set2.test.txt"], 700)[0])

    archive = tmp_path / "ltrc_yahoo.tar.bz2"
    archive.write_bytes(tar_bytes(texts, mode="w:bz2"))
    data = load_yahoo_ltr(archive, subset="all", data_home=tmp_path / "home")
    assert_loaded(data, b"".join(texts[f"set1.{n}.txt"] for n in ("train", "valid", "test")),
                  700)

    garbage = tmp_path / "garbage.tar.bz2"
    garbage.write_bytes(b"not an archive")
    with pytest.raises(OSError, match="garbage.tar.bz2' is not a readable archive"):
        load_yahoo_ltr(garbage, data_home=tmp_path / "home")

    (folder / "set1.test.txt").unlink()
    with pytest.raises(FileNotFoundError, match="has no set1.test.txt"):
        load_yahoo_ltr(folder, data_home=tmp_path / "home")
    with pytest.raises(FileNotFoundError, match="No Yahoo! LTR files at"):
        load_yahoo_ltr(tmp_path / "absent", data_home=tmp_path / "home")


# -- Options --------------------------------------------------------------------------------

def test_data_home_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SKLEARN_RANK_DATA", str(tmp_path / "env"))
    assert get_data_home() == str(tmp_path / "env")
    assert (tmp_path / "env").is_dir()
    monkeypatch.delenv("SKLEARN_RANK_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert get_data_home() == str(tmp_path / "user" / "sklearn_rank_data")
    assert get_data_home("~/elsewhere") == str(tmp_path / "user" / "elsewhere")


def test_fetcher_uses_the_data_home_of_the_environment(tmp_path, server, mslr, monkeypatch):
    monkeypatch.setenv("SKLEARN_RANK_DATA", str(tmp_path / "env"))
    fetch_mslr_web10k(subset="test", mirror=server.url)
    assert archive_path(tmp_path / "env", "mslr-web10k").exists()


def test_progress_only_when_asked_off_a_terminal(tmp_path, server, mslr, capsys):
    fetch_mslr_web10k(subset="test", data_home=tmp_path / "quiet", mirror=server.url)
    assert capsys.readouterr().err == ""
    fetch_mslr_web10k(subset="test", data_home=tmp_path / "shown", mirror=server.url,
                      progress=True)
    err = capsys.readouterr().err
    assert "Downloading MSLR-WEB10K.zip from http://127.0.0.1" in err
    assert re.search(r"MSLR-WEB10K.zip: 100% \(\d+\.\d of \d+\.\d MB\)", err)
    assert "MSLR-WEB10K: parsing train.txt (train)" in err
    assert "cached in" in err


@pytest.mark.parametrize("kwargs, error, match", [
    ({"fold": 6}, InvalidParameterError, "'fold' parameter"),
    ({"fold": 0}, InvalidParameterError, "'fold' parameter"),
    ({"subset": "valid"}, InvalidParameterError, "'subset' parameter"),
    ({"n_retries": -1}, InvalidParameterError, "'n_retries' parameter"),
    ({"dtype": np.int64}, ValueError, "dtype must be numpy.float32 or numpy.float64; got int64"),
])
def test_parameters_are_checked(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        fetch_mslr_web10k(data_home=tmp_path, download_if_missing=False, **kwargs)


def test_letor4_names_are_checked(tmp_path):
    with pytest.raises(InvalidParameterError, match="'name' parameter"):
        fetch_letor4("MQ2009", data_home=tmp_path)
