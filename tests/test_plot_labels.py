"""The displays label a figure with the names the results have: a ``$`` in a model's,
metric's or parameter's name is drawn as written, not read as matplotlib's mathematics."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib
from matplotlib import cbook

matplotlib.use("Agg")

from sklearn_rank.plot import (
    CriticalDifferenceDisplay,
    MetricAtKDisplay,
    ParameterSearchDisplay,
    PerQueryDifferenceDisplay,
)


def _texts(display):
    """Every text drawn on the display's axes: labels, title, ticks, legend, annotations."""
    ax = display.ax_
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts,
             *ax.get_xticklabels(), *ax.get_yticklabels()]
    if ax.get_legend() is not None:
        texts += ax.get_legend().get_texts()
    return texts


def _shown(text):
    """What matplotlib draws of ``text``: None when it reads it as mathematics."""
    s = text.get_text()
    if text.get_parse_math() and cbook.is_math_text(s):
        return None
    return s.replace(r"\$", "$")


def _check(display, *names):
    shown = [_shown(t) for t in _texts(display)]
    assert None not in shown, [t.get_text() for t in _texts(display)]
    for name in names:
        assert any(name in s for s in shown), (name, shown)


@pytest.fixture(autouse=True)
def _close():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_critical_difference_names():
    display = CriticalDifferenceDisplay([1.5, 2.0, 2.5], ["a$b$", "c$d$", "$e"]).plot()
    _check(display, "a$b$", "c$d$", "$e")


def test_per_query_difference_names_and_metric():
    display = PerQueryDifferenceDisplay(np.array([0.1, -0.2, 0.3]), names=("a$b$", "c$d$"),
                                        metric="m$x$").plot()
    _check(display, "a$b$ better", "c$d$ better", "a$b$ minus c$d$", "m$x$ difference")


def test_metric_at_k_name_and_metric():
    display = MetricAtKDisplay(ks=[1, 2, 3], values=[0.5, 0.6, 0.7], metric="n$k$",
                               name="a$b$").plot()
    _check(display, "a$b$", "n$k$")


def test_search_curve_labels_values_and_metric():
    display = ParameterSearchDisplay(["x$1$", "x$2$"], [[0.1, 0.2], [0.3, 0.4]],
                                     param="p$q$", labels=["l$1$", "l$2$"], metric="s$t$",
                                     fixed={"f$g$": "v$w$"}).plot(spread=None, show_folds=False)
    _check(display, "l$1$", "l$2$", "x$2$", "p$q$", "s$t$", "f$g$=v$w$")
