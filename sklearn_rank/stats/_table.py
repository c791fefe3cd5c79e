"""Tables as text: a :class:`ComparisonResult` as a paper's results table, and the one
aligned-text / Markdown / CSV table renderer and word-wrapper of the package (the command
line prints through them too).

Only the standard library and numpy are imported here.
"""

import string
from dataclasses import dataclass

import numpy as np

from ..utils._text import format_table, wrap

_SUPERSCRIPT = dict(zip(string.ascii_lowercase, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ"))
HIGHER, LOWER = "†", "‡"
_TESTS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
          "permutation": "randomization (permutation) test"}
_CI = {"BCa": "BCa bootstrap", "percentile": "percentile bootstrap",
       "basic": "basic bootstrap", "t": "Student's t"}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def letters(n):
    """``a, b, ..., z, aa, ab, ...``: one label per system."""
    out = []
    for i in range(n):
        label = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            label = string.ascii_lowercase[r] + label
        out.append(label)
    return out


@dataclass
class Cell:
    mean: float
    low: float
    high: float
    higher_than: list  # indices of the systems this one is significantly above
    lower_than: list
    best: bool


def cells(result):
    """``cells[metric][i]``: what the table shows for system ``i``."""
    index = {name: i for i, name in enumerate(result.systems)}
    out = {}
    for m in result.metrics:
        means = np.array([result.estimates[m][s].mean for s in result.systems])
        row = [Cell(e.mean, *e.confidence_interval, [], [], bool(e.mean == means.max()))
               for e in (result.estimates[m][s] for s in result.systems)]
        out[m] = row
        for c in result.comparisons:
            if c.metric != m or not c.significant or c.result.mean_difference == 0:
                continue
            i, j = index[c.system_a], index[c.system_b]
            if c.result.mean_difference < 0:
                i, j = j, i
            row[i].higher_than.append(j)
            row[j].lower_than.append(i)
    return out


def _marks(result, i, cell, fmt):
    """The significance marks of system ``i``'s cell, in format ``fmt``."""
    if result.baseline is not None:
        if result.systems[i] == result.baseline:
            return ""
        symbol = HIGHER if cell.higher_than else LOWER if cell.lower_than else ""
        if fmt == "latex" and symbol:
            return {HIGHER: r"$^{\dagger}$", LOWER: r"$^{\ddagger}$"}[symbol]
        return symbol
    labels = letters(len(result.systems))
    chosen = [labels[j] for j in sorted(cell.higher_than)]
    if not chosen:
        return ""
    if fmt == "latex":
        return r"$^{\mathrm{" + "".join(chosen) + "}}$"
    return "".join(_superscript(label) for label in chosen)


def _superscript(label):
    return "".join(_SUPERSCRIPT[ch] for ch in label) if len(label) == 1 else f"^{label}"


def _latex_escape(text):
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _row_labels(result):
    if result.baseline is not None:
        return [f"{name} (baseline)" if name == result.baseline else str(name)
                for name in result.systems]
    return [f"({label}) {name}" for label, name in zip(letters(len(result.systems)),
                                                       result.systems)]


def legend(result, fmt):
    """Lines explaining the table: what the numbers are and what the marks mean."""
    ns = sorted(set(result.n.values()))
    count = " or ".join(str(n) for n in ns)
    ci = f"{result.confidence_level * 100:g}% {_CI[result.ci_method]} CI"
    if result.unit == "fold":
        first = f"Mean of {count} per-fold means [{ci}]."
    else:
        folds = result.n_folds
        pooled = f", pooled over {folds} cross-validation folds" if folds else ""
        first = f"Mean over {count} queries{pooled} [{ci}]."
    n_tests = len(result.comparisons) // max(len(result.metrics), 1)
    if result.correction is None:
        correction = "no correction for multiple comparisons"
    else:
        plural = "s" if n_tests != 1 else ""
        correction = (f"{result.correction.capitalize()} correction over the {n_tests} "
                      f"comparison{plural} of each metric")
    how = (f"{_TESTS[result.test]}, two-sided, {correction}, alpha = {result.alpha:g}.")
    if result.baseline is not None:
        if fmt == "latex":
            marks = r"$^{\dagger}$ / $^{\ddagger}$"
        else:
            marks = f"{HIGHER} / {LOWER}"
        baseline = result.baseline if fmt != "latex" else _latex_escape(result.baseline)
        second = (f"{marks}: significantly higher / lower than the baseline ({baseline}): "
                  f"{how}")
    else:
        labels = letters(len(result.systems))
        if fmt == "latex":
            marks = r"$^{\mathrm{" + "".join(labels) + "}}$"
        else:
            marks = "".join(_superscript(label) for label in labels)
        systems = ", ".join(f"({label})" for label in labels)
        second = f"{marks}: significantly higher than system {systems}: {how}"
    if fmt == "latex":
        first = _latex_escape(first)
    return [first, second]


def test_name(test):
    """The name of a paired test in words: ``"t"`` -> ``"paired t-test"``."""
    return _TESTS[test]


def ci_name(method):
    """The name of an interval method in words: ``"BCa"`` -> ``"BCa bootstrap"``."""
    return _CI[method]


def difference_interval_note(result):
    """What the interval of each mean difference is, and how it relates to the test's verdict.

    The interval is the test's own only for Student's t beside the t-test (one inverts the
    other); any other pair comes from different methods, and can disagree near the
    threshold. Either way, a correction for multiple comparisons does not widen it.
    """
    level = f"{result.confidence_level * 100:g}%"
    method = result.difference_ci_method
    test = _TESTS[result.test]
    if result.test == "t" and method == "t":
        note = (f"The interval of each mean difference is the {level} Student's t interval, "
                f"the {test}'s own: it excludes 0 exactly when the uncorrected p-value is "
                f"below {1 - result.confidence_level:.4g}.")
    elif result.test == "permutation" and method != "t":
        note = (f"The interval of each mean difference is a {level} {_CI[method]} interval; "
                f"the {test} is another resampling method, not the interval inverted: near "
                "the threshold, the two can disagree.")
    else:
        note = (f"The interval of each mean difference is a {level} {_CI[method]} interval, "
                f"a different method from the {test}: near the threshold, an interval can "
                "exclude 0 beside a difference that is not significant, or the reverse.")
    if result.correction is not None:
        note += (f" It is not adjusted for the {result.correction.capitalize()} correction: "
                 "it can exclude 0 for a difference whose corrected p-value is above "
                 f"alpha = {result.alpha:g}.")
    return note


def render(result, fmt, digits):
    table = cells(result)
    labels = _row_labels(result)

    def cell_text(i, cell):
        mean = f"{cell.mean:.{digits}f}"
        if cell.best and fmt == "markdown":
            mean = f"**{mean}**"
        elif cell.best and fmt == "latex":
            mean = rf"\textbf{{{mean}}}"
        return f"{mean} [{cell.low:.{digits}f}, {cell.high:.{digits}f}]" + _marks(
            result, i, cell, fmt)

    header = ["System", *result.metrics]
    rows = [[label, *(cell_text(i, table[m][i]) for m in result.metrics)]
            for i, label in enumerate(labels)]
    notes = legend(result, fmt)
    if fmt == "text":
        lines = [format_table(header, rows, "text", align="l" * len(header)), ""]
        for note in notes:
            lines += wrap(note)
        return "\n".join(lines)
    if fmt == "markdown":
        return "\n".join([format_table(header, rows, "markdown"), "", *notes])
    ncols = len(header)
    lines = [r"\begin{tabular}{l" + "r" * len(result.metrics) + "}", r"\toprule",
             " & ".join(_latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join([_latex_escape(r[0]), *r[1:]]) + r" \\" for r in rows]
    lines.append(r"\bottomrule")
    lines += [rf"\multicolumn{{{ncols}}}{{l}}{{\footnotesize {note}}} \\" for note in notes]
    lines.append(r"\end{tabular}")
    return "\n".join(lines)


def csv_table(result, index_label):
    """One row per system: mean and interval of each metric, then the tests.

    Against a baseline: the corrected p-value and the verdict (``higher``, ``lower``,
    ``same``, or ``baseline`` for the baseline itself). Without one: the systems it is
    significantly above and below. Numbers are written with all their digits.
    """
    table = cells(result)
    tests = {(c.metric, c.system_a): c for c in result.comparisons}
    header = [index_label]
    for m in result.metrics:
        header += [f"{m} mean", f"{m} ci_low", f"{m} ci_high"]
        header += ([f"{m} pvalue_corrected", f"{m} vs baseline"]
                   if result.baseline is not None else [f"{m} higher_than", f"{m} lower_than"])
    rows = []
    for i, system in enumerate(result.systems):
        row = [str(system)]
        for m in result.metrics:
            cell = table[m][i]
            row += [repr(float(cell.mean)), repr(float(cell.low)), repr(float(cell.high))]
            if result.baseline is None:
                row += [_names(result, cell.higher_than), _names(result, cell.lower_than)]
                continue
            test = tests.get((m, system))
            if test is None:
                row += ["", "baseline"]
                continue
            higher = test.result.mean_difference > 0
            verdict = ("higher" if higher else "lower") if test.significant else "same"
            row += [repr(float(test.pvalue_corrected)), verdict]
        rows.append(row)
    return format_table(header, rows, "csv") + "\n"


def _names(result, indices):
    return ", ".join(str(result.systems[j]) for j in sorted(indices))


def summary_frame(result, pd):
    table = cells(result)
    data = {}
    for m in result.metrics:
        row = table[m]
        data[(m, "mean")] = [c.mean for c in row]
        data[(m, "ci_low")] = [c.low for c in row]
        data[(m, "ci_high")] = [c.high for c in row]
        data[(m, "higher_than")] = [_names(result, c.higher_than) for c in row]
        data[(m, "lower_than")] = [_names(result, c.lower_than) for c in row]
    frame = pd.DataFrame(data, index=pd.Index(result.systems, name="system"))
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["metric", None])
    return frame


def comparisons_frame(result, pd):
    records = [
        {
            "metric": c.metric, "system_a": c.system_a, "system_b": c.system_b,
            "mean_a": c.result.mean_a, "mean_b": c.result.mean_b,
            "mean_difference": c.result.mean_difference,
            "ci_low": c.result.confidence_interval.low,
            "ci_high": c.result.confidence_interval.high,
            "ci_method": c.result.ci_method,
            "effect_size": c.result.effect_size, "statistic": c.result.statistic,
            "pvalue": c.pvalue, "pvalue_corrected": c.pvalue_corrected,
            "significant": c.significant, "n": c.result.n,
        }
        for c in result.comparisons
    ]
    return pd.DataFrame.from_records(records)


def folds_frame(result, pd):
    data = {}
    for m in result.metrics:
        for system in result.systems:
            means = result.fold_means[m][system]
            if means is None:
                raise ValueError(
                    f"There are no per-fold means: system {system!r} came without a 'fold' "
                    "column. Pass cross_validate(..., return_per_query=True) results, or "
                    "mappings with a 'fold' column."
                )
    for m in result.metrics:
        folds = sorted({f for s in result.systems for f in result.fold_means[m][s]})
        for f in folds:
            data[(m, f)] = [result.fold_means[m][s].get(f, np.nan) for s in result.systems]
    frame = pd.DataFrame(data, index=pd.Index(result.systems, name="system"))
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["metric", "fold"])
    return frame


class TextTable:
    """What a results object with ``to_string`` and ``to_markdown`` shows: its text when
    printed or echoed, its Markdown in a notebook."""

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return self.to_string()

    def _repr_markdown_(self):
        return self.to_markdown()
