"""The results tables of a benchmark run: :meth:`BenchmarkResult.tables
<sklearn_rank.benchmark.BenchmarkResult.tables>`.

Per data set, the models compared on their per-query values (each query averaged over the
seeds, :meth:`~sklearn_rank.benchmark.BenchmarkResult.compare`), the spread of their means
over the seeds (:meth:`~sklearn_rank.benchmark.BenchmarkResult.summary`) and, with a
held-out test set, the comparison of the models refitted on all the data: rendered as text,
Markdown or LaTeX, as JSON-ready dicts, or as CSV, which ``sklearn-rank cv`` prints and
writes.
"""

import csv
import io

from ..utils._text import wrap

__all__ = ["BenchmarkTables"]

TABLE_FORMATS = ("text", "markdown", "latex")


def _comment(text, format):
    """``text`` as a comment of ``format``: as it is in plain text, an HTML comment in
    Markdown, ``%`` lines in LaTeX (a header of provenance above a table)."""
    if format == "markdown":
        return "<!--\n" + text.replace("--", "- -") + "\n-->"
    if format == "latex":
        return "\n".join("% " + line for line in text.splitlines())
    return text


def _table(result, format):
    return {"text": result.to_string, "markdown": result.to_markdown,
            "latex": result.to_latex}[format]()


def _paragraph(text):
    return "\n".join(wrap(text))


class BenchmarkTables:
    """The results tables of a benchmark run, from :meth:`BenchmarkResult.tables
    <sklearn_rank.benchmark.BenchmarkResult.tables>`.

    Attributes
    ----------
    result : BenchmarkResult
        The run.
    comparisons : dict
        Data set (None for a run of one unnamed data set) ->
        :class:`~sklearn_rank.stats.ComparisonResult` of the models on its
        cross-validation folds, each query averaged over the seeds.
    held_out : ComparisonResult or None
        The models refitted on all the data, compared on the held-out test set.
    spread : dict
        Data set -> model -> metric -> ``(mean, std)``: the mean over queries under each
        seed, their mean and standard deviation (``ddof=1``, NaN for one seed).
    """

    def __init__(self, result, comparisons, held_out, spread):
        self.result = result
        self.comparisons = comparisons
        self.held_out = held_out
        self.spread = spread

    @property
    def several(self):
        """Whether the run has named data sets or seeds: a table per data set."""
        return self.result.datasets != [None] or self.result.seeds != [None]

    def __repr__(self):
        return f"BenchmarkTables({self.result!r})"

    def render(self, format="text", *, split=None, header=None):
        """The tables as text, Markdown or LaTeX.

        Parameters
        ----------
        format : {"text", "markdown", "latex"}, default="text"
        split : {"cv", "test"} or None, default=None
            Only the cross-validation's tables (per data set, with the spread over the
            seeds in a run of several), or only the held-out test set's (empty without
            one); None: both.
        header : str, default=None
            A text written first, as a comment of the format (e.g. the provenance).

        Returns
        -------
        text : str
        """
        if format not in TABLE_FORMATS:
            raise ValueError(f"format must be one of {', '.join(TABLE_FORMATS)}; got "
                             f"{format!r}.")
        parts = [] if header is None else [_comment(header, format)]
        if split in (None, "cv"):
            parts += self._cv(format)
        if split in (None, "test") and self.held_out is not None:
            test = self.result.provenance["test"]
            title = _paragraph(
                f"Held-out test set, {test['source']}: {test['n_queries']:,} queries, "
                f"{test['n_documents']:,} documents, {test['n_features']} features; each "
                "model refitted on all of the data:")
            parts += [_comment(title, format) if format == "latex" else title,
                      _table(self.held_out, format)]
        return "\n\n".join(parts)

    def _cv(self, format):
        if not self.several:
            return [_table(comparison, format) for comparison in self.comparisons.values()]
        seeds = self.result.seeds
        sections = []
        for name, comparison in self.comparisons.items():
            title = ("The data set" if name is None else f"Data set {name}") + (
                f", each query averaged over {len(seeds)} seeds:" if len(seeds) > 1 else ":")
            lines = [_table(comparison, format)]
            if len(seeds) > 1:
                spread = [_paragraph(
                    f"Spread over the {len(seeds)} seeds ({', '.join(map(str, seeds))}): "
                    "the mean over queries under each seed, their mean ± standard "
                    "deviation (ddof=1):")]
                spread += [f"  {label}: " + ", ".join(
                    f"{m} {mean:.4f} ± {std:.4f}" for m, (mean, std) in values.items())
                    for label, values in self.spread[name].items()]
                spread = "\n".join(spread)
                lines.append(_comment(spread, format) if format == "latex" else spread)
            sections.append((_comment(title, format) if format == "latex" else title)
                            + "\n\n" + "\n\n".join(lines))
        return ["\n\n".join(sections)]

    def to_dict(self):
        """The tables as JSON-ready dicts (the rows of
        :meth:`~sklearn_rank.stats.ComparisonResult.to_records`, keyed ``"model"``).

        Returns
        -------
        tables : dict
            A run of one data set and seed: ``{"cv": rows, "test": rows or None, "folds":
            {model: {"fit_time", "score_time", "scores_by_fold"}}}``. A run of several:
            ``{"datasets": {name ("" for None): {"cv": rows, "seed_spread": {model:
            {metric: {"mean", "std"}}}}}}``.
        """
        if not self.several:
            (comparison,), folds = self.comparisons.values(), next(iter(
                self.result.folds.values()))
            return {"cv": comparison.to_records(index_label="model"),
                    "test": None if self.held_out is None
                    else self.held_out.to_records(index_label="model"),
                    "folds": {label: {k: fold[k] for k in ("fit_time", "score_time",
                                                         "scores_by_fold")}
                              for label, fold in folds.items()}}
        return {"datasets": {
            "" if name is None else name: {
                "cv": comparison.to_records(index_label="model"),
                "seed_spread": {label: {m: {"mean": mean, "std": std}
                                        for m, (mean, std) in values.items()}
                                for label, values in self.spread[name].items()}}
            for name, comparison in self.comparisons.items()}}

    def plot(self, data, axes):
        """Draw a run of one data set and seed, kept with ``return_predictions=True``.

        Left: the metric at k (``k`` = 1 to 20) of every model's out-of-fold predictions
        (:class:`~sklearn_rank.plot.MetricAtKDisplay`), for the first metric with a
        cut-off (nDCG when none has one), on the data set's grade scale. Right: the
        per-query differences of the best model (the highest mean of the first metric)
        with the baseline (:class:`~sklearn_rank.plot.PerQueryDifferenceDisplay`).

        Parameters
        ----------
        data : tuple or data set
            The data set of the run, ``(X, y, qid)`` or with ``y`` and ``qid``.
        axes : pair of matplotlib Axes
        """
        from ..metrics import bind_metric
        from ..plot import MetricAtKDisplay, PerQueryDifferenceDisplay
        from ..utils._figures import figure_label
        from ._benchmark import _grade_scales
        from ._units import as_dataset

        (comparison,) = self.comparisons.values()
        folds = next(iter(self.result.folds.values()))
        if self.several or any(fold["scores"] is None for fold in folds.values()):
            raise ValueError("plot draws a run of one data set and seed whose out-of-fold "
                             "predictions were kept: run_benchmark(return_predictions=True).")
        data, (left, right) = as_dataset(data), axes
        convention = self.result.provenance.get("convention")
        curve = next((entry.name for entry in (bind_metric(m).metric
                                               for m in self.result.metrics)
                      if "k" in entry.options), "ndcg")
        options = {} if convention is None else {"convention": convention}
        options.update(_grade_scales([curve], convention, data.y).get(curve, {}))
        for label, fold in folds.items():
            MetricAtKDisplay.from_predictions(data.y, fold["scores"], qid=data.qid,
                                              metric=curve, ks=range(1, 21),
                                              name=figure_label(label), ax=left, **options)
        n_splits = len(next(iter(folds.values()))["fit_time"])
        left.set_title(f"Out-of-fold predictions, {n_splits}-fold cross-validation")
        first, baseline = self.result.metrics[0], comparison.baseline
        best = max((s for s in comparison.systems if s != baseline),
                   key=lambda s: comparison.estimates[first][s].mean)
        PerQueryDifferenceDisplay.from_cv_results(
            folds[best]["per_query"], folds[baseline]["per_query"], metric=first,
            names=(figure_label(best), figure_label(baseline)), ax=right,
            random_state=self.result.provenance.get("seed"))

    def to_csv(self):
        """The comparison of a run of one data set and seed as CSV, with the provenance in
        every row.

        Returns
        -------
        text : str
            One row per model and split: ``model``, ``split`` (``cv`` or ``test``), the
            columns of :meth:`~sklearn_rank.stats.ComparisonResult.to_csv`, then each
            metric's canonical key (``"METRIC key"``), the data (``data``, ``data_sha256``,
            ``test_data``), ``convention``, ``splitter``, ``seed`` and
            ``sklearn_rank_version``, the same in every row.

        Raises
        ------
        ValueError
            For a run of several data sets or seeds: its per-query values are
            :meth:`~sklearn_rank.benchmark.BenchmarkResult.per_query_csv`.
        """
        if self.several:
            raise ValueError("to_csv: a run of several data sets or seeds has a table per "
                             "data set; write to_dict() as JSON, or per_query_csv().")
        p = self.result.provenance
        extra = {f"{m} key": key for m, key in p["metrics"].items()}
        extra.update({
            "data": p["data"]["source"], "data_sha256": p["data"]["sha256"],
            "test_data": "" if p["test"] is None else p["test"]["source"],
            "convention": p["convention"] or "", "splitter": p["splitter"],
            "seed": p["seed"], "sklearn_rank_version": p["sklearn_rank_version"],
        })
        buffer = io.StringIO()
        writer = None
        (comparison,) = self.comparisons.values()
        for split, table in (("cv", comparison), ("test", self.held_out)):
            if table is None:
                continue
            reader = csv.reader(io.StringIO(table.to_csv(index_label="model")))
            header = next(reader)
            if writer is None:
                writer = csv.writer(buffer, lineterminator="\n")
                writer.writerow([header[0], "split", *header[1:], *extra])
            for row in reader:
                writer.writerow([row[0], split, *row[1:], *extra.values()])
        return buffer.getvalue()
