"""``sklearn-rank report``: the HTML page of a results store, opened in a real browser.

The store is written by real runs of ``cv`` and ``tune`` (``--store``). The page is read as
text (its tables are those of :func:`sklearn_rank.stats.compare` on the stored values) and
opened in headless Chromium through chromedriver's W3C HTTP interface: every image decodes,
the screenshot is not blank, and the browser, whose every request goes through a local proxy
that counts connections, makes none. The browser tests skip when Chromium or chromedriver is
not installed (``apt-get install chromium chromium-driver``).
"""

import base64
import contextlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

import sklearn_rank._cli as cli
from sklearn_rank._cli import _report, main
from sklearn_rank._cli._common import ArgumentParser, CLIError
from sklearn_rank.benchmark import _report as _page
from sklearn_rank.benchmark._store import ResultsStore, load_store
from sklearn_rank.stats import compare

pytest.importorskip("matplotlib")

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CV = ["cv", "--n-queries", "30", "--n-splits", "3", "--metrics", "ndcg@1", "ndcg@5", "ndcg@10",
      "--model", "linear=sklearn.linear_model:LinearRegression", "--model",
      "ridge=sklearn.linear_model:Ridge", "--set", "alpha=100", "--model", "pointwise",
      "--n-estimators", "5", "-q"]
TUNE = ["tune", "--n-queries", "30", "--n-splits", "3", "--model", "sklearn.linear_model:Ridge",
        "--param", "alpha=0.1,10,1000", "-q"]


def report(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``sklearn-rank report ARGV``: through ``main`` once
    the subcommand is registered, through the module's parser until then."""
    argv = [str(a) for a in argv]
    if "report" in cli.COMMANDS:
        code = main(["report", *argv])
    else:
        parser = ArgumentParser(prog="sklearn-rank report")
        _report.add_arguments(parser)
        try:
            args = parser.parse_args(argv)
            args.prog = parser.prog
            code = _report.run(args)
        except CLIError as exc:
            print(f"sklearn-rank report: error: {exc}", file=sys.stderr)
            code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A store with a cv run, a tune run and an unfinished run, and its report."""
    folder = tmp_path_factory.mktemp("report")
    store = folder / "results.sqlite"
    for argv in (CV, TUNE):
        assert main([*argv, "--store", str(store)]) == 0
    # an unfinished run: started, one unit written, never finished (a killed run)
    results = ResultsStore(store)
    cv_run = results.runs()[0]
    run_id = results.start_run("killed", cv_run["command"],
                               {**cv_run["provenance"], "seed": 7}, cv_run["units"])
    results.write_unit(run_id, {**results.read_units(cv_run["id"])[0], "describe": "a unit"})
    results.close()
    output = folder / "report.html"
    return {"store": store, "output": output, "folder": folder}


def test_report_imports_neither_scikit_learn_nor_pandas(page, tmp_path):
    """The page needs SciPy's statistics and matplotlib, not scikit-learn or pandas: a seed
    handed to scikit-learn's validation, and the scorers imported by the plotting module,
    loaded both (0.55 s of the 2.25 s of CPU of a two-run store, issue 21). The page is the
    same (see the other tests on the same store)."""
    probe = ("import sys\n"
             "from sklearn_rank._cli import main\n"
             "assert main(['report', *sys.argv[1:]]) == 0\n"
             "print(sorted(m for m in ('sklearn', 'pandas') if m in sys.modules))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", probe, str(page["store"]), "--output",
                           str(tmp_path / "light.html")], cwd=root,
                          env={**os.environ, "PYTHONPATH": root}, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


def test_report_writes_the_comparison_curves_and_provenance(capsys, page):
    code, out, err = report(capsys, page["store"], "--output", page["output"])
    assert code == 0, err
    assert out.strip() == (f"{page['output']}: 2 finished runs, 1 unfinished of "
                           f"{page['store']}.")
    text = page["output"].read_text(encoding="utf-8")
    # self-contained: no script, no link, no remote address anywhere in an attribute
    assert "<script" not in text.lower() and "<link" not in text.lower()
    assert re.findall(r"""(?:src|href|url)\s*[=(]\s*["']?\s*(?!data:|#)[a-z]+:""", text,
                      re.IGNORECASE) == []
    assert "http://" not in text and "https://" not in text
    assert "default-src 'none'" in text
    images = re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]+)">', text)
    assert [alt for alt, _ in images] == [
        "metric at k of every system",
        "per-query differences of ndcg@1 with the baseline",
        "search curve: mean test score per candidate"]
    for _, data in images:
        assert base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n")

    # the comparison table holds compare's numbers on the stored per-query values
    systems = load_store(page["store"], run=1)
    result = compare(systems, metric=systems.metrics, baseline=systems.baseline,
                     random_state=systems.seed)
    for metric in systems.metrics:
        for name in systems:
            estimate = result.estimates[metric][name]
            low, high = estimate.confidence_interval
            assert f"{estimate.mean:.4f} [{low:.4f}, {high:.4f}]" in text
    for c in result.comparisons:
        assert (f"<td>{c.metric}</td><td>{c.system_a} − {c.system_b}</td><td class=\"num\">"
                f"{c.result.mean_difference:.4f}") in text
        assert f"{c.pvalue_corrected:.4g}</td>" in text
    # tune's candidates, best first, with their mean over the folds
    tuned = load_store(page["store"], run=2)
    means = {name: np.mean([values["ndcg@10"][values["fold"] == f].mean()
                            for f in range(3)]) for name, values in tuned.items()}
    best = max(means, key=means.get)
    assert f"<td class=\"num\">1</td><td class=\"num\">{best.split()[1]}</td>" in text
    assert f"{means[best]:.4f} ± " in text
    # provenance of each run, and the unfinished one named as such, with the way out
    provenance = systems.provenance
    assert provenance["data"]["sha256"] in text
    for library, version in provenance["versions"].items():
        assert f"{library} {version}" in text
    assert "QueryKFold(n_splits=3, shuffle=True, random_state=0)" in text
    assert ("This run is unfinished: 1 of 9 units of work are stored" in text
            and "<code>--resume</code>" in text)


@pytest.mark.parametrize("argv, code, part", [
    (["missing.sqlite", "--output", "r.html"], 1, "STORE 'missing.sqlite': no such file"),
    (["{store}", "--output", "r.pdf"], 2, "--output 'r.pdf': unknown file type '.pdf'"),
    (["{store}", "--output", "r.html", "--run", "9"], 2,
     "--run 9: '{store}' has no such run; its runs: 1, 2, 3"),
    (["{text}", "--output", "r.html"], 1, "is not a results store of sklearn-rank"),
])
def test_report_errors(capsys, page, monkeypatch, argv, code, part):
    monkeypatch.chdir(page["folder"])
    (page["folder"] / "text.db").write_text("not a database")
    names = {"store": str(page["store"]), "text": "text.db"}
    got, out, err = report(capsys, *(a.format(**names) for a in argv))
    assert got == code
    lines = err.strip().splitlines()
    assert len(lines) == 1 and part.format(**names) in lines[0], err
    assert not (page["folder"] / "r.html").exists()


def test_report_difference_interval_belongs_to_the_test_or_says_it_does_not(capsys, page):
    """Issue 18, item 5: the interval beside the t-test's verdict is the t-test's own."""
    rng = np.random.default_rng(17)  # skewed differences: BCa excludes 0, t-test p = 0.097
    b = rng.uniform(0.2, 0.8, 40)
    d = np.where(rng.uniform(size=40) < 0.15, rng.uniform(-0.5, -0.1, 40),
                 rng.exponential(0.02, 40))
    systems = {"new": b + d, "old": b}
    rows = r'<tr(?: class="significant")?><td>score</td><td>new − old</td>' \
           r'<td class="num">(\S+) \[(\S+), (\S+)\]</td><td class="num">(\S+)</td>' \
           r'<td class="num">\S+</td><td>(yes|no)</td></tr>'
    table = _page._comparison_table(compare(systems, baseline="old", random_state=0))
    ((mean, low, high, p, significant),) = re.findall(rows, table)
    assert float(p) > 0.05 and significant == "no"
    assert float(low) < 0 < float(high)  # before: the BCa interval, [-0.0840, -0.0030]
    assert "<th>Mean difference [95% Student&#x27;s t CI]</th>" in table
    assert ("The interval of each mean difference is the 95% Student&#x27;s t interval, the "
            "paired t-test&#x27;s own: it excludes 0 exactly when the uncorrected p-value is "
            "below 0.05.") in table
    assert "[95% BCa bootstrap CI of the mean]" in table
    # another interval, asked for, is said to come from another method
    table = _page._comparison_table(compare(systems, baseline="old", ci_method="BCa",
                                              random_state=0))
    ((mean, low, high, p, significant),) = re.findall(rows, table)
    assert float(high) < 0 and significant == "no"
    assert "<th>Mean difference [95% BCa bootstrap CI]</th>" in table
    assert "a different method from the paired t-test" in table
    # the page written from a store says the same
    code, _, err = report(capsys, page["store"], "--output", page["output"])
    assert code == 0, err
    text = page["output"].read_text(encoding="utf-8")
    assert "<th>Mean difference [95% Student&#x27;s t CI]</th>" in text
    assert "the paired t-test&#x27;s own" in text


# ----------------------------------------------------------------------------------------
# In a real browser


class CountingProxy:
    """A TCP server on loopback that counts the connections made to it and closes them:
    the browser's proxy, so that any request it makes is seen."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.requests = []  # the first line of each: "CONNECT host:443 HTTP/1.1"...
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:  # closed
                return
            self.connections += 1
            connection.settimeout(2)
            try:
                self.requests.append(connection.recv(4096).split(b"\r\n")[0].decode())
            except OSError:
                self.requests.append("")
            connection.close()

    def close(self):
        self.server.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as response:
        return json.loads(response.read())["value"]


@pytest.fixture
def browser(tmp_path):
    """A chromedriver session of headless Chromium whose proxy counts connections."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("Chromium and chromedriver are not installed "
                    "(apt-get install chromium chromium-driver)")
    proxy = CountingProxy()
    port = free_port()
    driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    session = None
    try:
        for _ in range(200):
            try:
                request("GET", f"{base}/status")
                break
            except OSError:
                time.sleep(0.05)
        options = {"binary": CHROMIUM, "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update",
            "--disable-default-apps", "--disable-sync", "--no-first-run", "--no-pings",
            "--disable-extensions", "--disable-component-extensions-with-background-pages",
            "--disable-client-side-phishing-detection", "--disable-domain-reliability",
            "--metrics-recording-only", "--safebrowsing-disable-auto-update",
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,"
            "Translate,AutofillServerCommunication,InterestFeedContentSuggestions,"
            "SignInProfileCreation,PrivacySandboxSettings4",
            "--window-size=1200,900", f"--user-data-dir={tmp_path / 'profile'}",
            f"--proxy-server=127.0.0.1:{proxy.port}", "--proxy-bypass-list=<-loopback>"],
            # no preconnection to the default search engine (Debian's Chromium: DuckDuckGo)
            "prefs": {"net.network_prediction_options": 2}}
        session = request("POST", f"{base}/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options,
            "goog:loggingPrefs": {"performance": "ALL"}}}})["sessionId"]
        yield {"url": f"{base}/session/{session}", "proxy": proxy}
    finally:
        if session is not None:
            request("DELETE", f"{base}/session/{session}")
        driver.terminate()
        driver.wait(timeout=30)
        proxy.close()


def test_report_opens_in_chromium_renders_its_plots_and_requests_nothing(capsys, page,
                                                                          browser):
    from matplotlib.image import imread

    code, out, err = report(capsys, page["store"], "--output", page["output"])
    assert code == 0, err
    session, proxy = browser["url"], browser["proxy"]
    request("POST", f"{session}/se/log", {"type": "performance"})  # read: from now on
    request("POST", f"{session}/url", {"url": page["output"].resolve().as_uri()})
    state = request("POST", f"{session}/execute/sync", {"script": """
        return {title: document.title, ready: document.readyState,
                tables: document.querySelectorAll('table').length,
                images: Array.from(document.images).map(
                    i => [i.complete, i.naturalWidth, i.naturalHeight, i.alt])};""",
        "args": []})
    assert state["title"] == f"sklearn-rank report: {page['store']}"
    assert state["ready"] == "complete" and state["tables"] >= 6
    assert len(state["images"]) == 3
    for complete, width, height, alt in state["images"]:
        assert complete and width > 100 and height > 100, alt  # decoded and drawn
    screenshot = imread(io.BytesIO(base64.b64decode(request("GET", f"{session}/screenshot"))),
                        format="png")
    assert screenshot.shape[0] > 100 and screenshot[..., :3].std() > 0.05  # not blank
    time.sleep(0.5)  # a late request would come now
    # what the page requested, from the browser's own network events of its document (the
    # new-tab page that chromedriver opens first may still be loading its own)
    uri = page["output"].resolve().as_uri()
    urls = page_requests(session, uri)
    assert urls[0] == uri and len(urls) >= 4  # the page, then its images
    assert all(url.startswith(("file:", "data:")) for url in urls), urls
    # what reached the network: the proxy sees every connection; Chromium's own services
    # (time, sign-in, updates: on any page, a blank one too) are not the page's
    assert [line for line in proxy.requests if not _background(line)] == []

    # the page's requests do reach the proxy, and would fail the two checks above
    with contextlib.suppress(urllib.error.HTTPError):  # the proxy closed it: an error page
        request("POST", f"{session}/url", {"url": "http://192.0.2.1/"})
    for _ in range(100):
        if any(not _background(line) for line in proxy.requests):
            break
        time.sleep(0.05)
    assert "GET http://192.0.2.1/ HTTP/1.1" in proxy.requests
    assert page_requests(session, "http://192.0.2.1/") == ["http://192.0.2.1/"]


def page_requests(session, document):
    """The URLs that the document ``document`` requested (itself first), from the
    performance log of chromedriver (Chromium's Network.requestWillBeSent events)."""
    events = [json.loads(entry["message"])["message"] for entry in request(
        "POST", f"{session}/se/log", {"type": "performance"})]
    return [e["params"]["request"]["url"] for e in events
            if e["method"] == "Network.requestWillBeSent"
            and e["params"].get("documentURL") == document]


# The hosts of Chromium's own background services (network time, sign-in, component
# updates, push messaging), and the default search engine of Debian's Chromium (DuckDuckGo):
# connected to at start-up whatever the page, a blank one included.
_CHROMIUM_SERVICES = (".google.com", ".gvt1.com", ".googleapis.com", ".duckduckgo.com")


def _background(line):
    """Whether a proxied request line is one of Chromium's own services'."""
    parts = line.split()
    if len(parts) < 2:
        return False
    target = parts[1]
    host = (target.split("//", 1)[1].split("/", 1)[0] if "//" in target else target)
    host = host.rsplit(":", 1)[0]
    return host.endswith(_CHROMIUM_SERVICES)


@pytest.fixture(scope="module")
def across_page(tmp_path_factory):
    """A store with a run of 3 models x 3 data sets x 2 seeds (issue 22, item 6)."""
    from sklearn.linear_model import LinearRegression, Ridge

    from sklearn_rank.benchmark import run_benchmark
    from sklearn_rank.datasets import make_ranking

    folder = tmp_path_factory.mktemp("across")
    store = folder / "results.sqlite"
    data = {f"set {i}": make_ranking(24, noise=noise, random_state=i)
            for i, noise in enumerate([0.1, 1.0, 2.5])}
    run_benchmark({"ols": LinearRegression(), "ridge": Ridge(alpha=30.0),
                   "stiff": Ridge(alpha=3000.0)}, data, metrics=["ndcg@5"], n_splits=3,
                  n_repeats=2, store=store)
    return {"store": store, "output": folder / "report.html"}


def test_report_across_data_sets_imports_neither_scikit_learn_nor_pandas(across_page,
                                                                         tmp_path):
    probe = ("import sys\n"
             "from sklearn_rank._cli import main\n"
             "assert main(['report', *sys.argv[1:]]) == 0\n"
             "print(sorted(m for m in ('sklearn', 'pandas') if m in sys.modules))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", probe, str(across_page["store"]), "--output",
                           str(tmp_path / "light.html")], cwd=root,
                          env={**os.environ, "PYTHONPATH": root}, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout
    assert "Across the 3 data sets" in (tmp_path / "light.html").read_text(encoding="utf-8")


def test_report_across_data_sets_in_chromium(capsys, across_page, browser):
    """The section across data sets: its ranks table, tests and power lines as text, and
    its critical difference diagram decoded and drawn by the browser; the groups the page
    lists are those of the tests."""
    code, out, err = report(capsys, across_page["store"], "--output", across_page["output"])
    assert code == 0, err
    session = browser["url"]
    request("POST", f"{session}/url", {"url": across_page["output"].resolve().as_uri()})
    state = request("POST", f"{session}/execute/sync", {"script": """
        const section = document.querySelector('section.across-datasets');
        const image = section.querySelector('img');
        return {heading: section.previousElementSibling.textContent,
                rows: section.querySelectorAll('tbody tr').length,
                text: section.innerText,
                image: [image.complete, image.naturalWidth, image.naturalHeight, image.alt]};""",
        "args": []})
    assert state["heading"] == "Across the 3 data sets"
    assert state["rows"] == 3 + 1  # the data sets, then the average ranks
    complete, width, height, alt = state["image"]
    assert complete and width > 200 and height > 50, alt
    assert alt == "Critical difference diagram: average ranks of ols, ridge, stiff"
    result = load_store(across_page["store"]).compare_datasets("ndcg@5", delta=0.01)
    assert "the Wilcoxon signed-rank test cannot reach alpha = 0.05" in state["text"]
    if result.groups:
        groups = "; ".join("{" + ", ".join(g) + "}" for g in result.groups)
        assert f"Not told apart: {groups}." in state["text"]
    for dataset in result.datasets:
        assert f"Queries, {dataset}: {result.power[dataset].summary()}" in state["text"]
