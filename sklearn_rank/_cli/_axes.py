"""``--dataset NAME=SOURCE`` and ``--repeats``/``--seeds`` of ``cv``: the data set and seed
axes of a benchmark run.

``--data a.txt b.txt`` keeps its meaning, one data set (the files pooled); ``--dataset``
given several times names several data sets, each compared on its own. ``--repeats N``
repeats the split (and the models' seeds) with the seeds ``--seed``, ``--seed`` + 1, ...;
``--seeds`` gives them. The standard library only: imported by the argument builders.
"""

import os

from ._common import MAX_SEED, int_at_least, usage_error


def add_axis_options(parser, datasets=True):
    """``--dataset`` (unless ``datasets`` is False), ``--repeats`` and ``--seeds``."""
    group = parser.add_argument_group("data sets and seeds" if datasets else "seeds")
    if datasets:
        group.add_argument(
            "--dataset", action="append", nargs="+", metavar=("NAME=SOURCE", "SOURCE"),
            help="a named data set, each compared on its own; repeat it for several data "
            "sets (--data a.txt b.txt instead pools its files into one data set). SOURCE is "
            "what --data takes; more SOURCEs after the first are pooled into that data set")
    seeds = group.add_mutually_exclusive_group()
    seeds.add_argument(
        "--repeats", type=int_at_least(1), metavar="N",
        help="repeat the split N times, with the seeds --seed, --seed + 1, ...: the folds and "
        "the models' seeds change" + (", the tables average each query over the repeats and "
                                       "show the spread over seeds" if datasets else
                                       "; a candidate's score is its mean over every fold of "
                                       "every repeat") + " (default: one split, of --seed)")
    seeds.add_argument(
        "--seeds", nargs="+", type=int_at_least(0, MAX_SEED), metavar="SEED",
        help="the seeds of the repeated split, instead of --repeats")


def named_datasets(args):
    """``{name: [sources]}`` of ``--dataset``, in order; None without ``--dataset``."""
    given = getattr(args, "dataset", None)
    if not given:
        return None
    if args.data is not None:
        raise usage_error("give the data with --data (one data set) or --dataset NAME=SOURCE "
                          "(repeated, one data set each), not both.")
    datasets = {}
    for first, *more in given:
        name, sep, source = first.partition("=")
        name, source = name.strip(), source.strip()
        if not sep or not name or not source:
            raise usage_error(f"--dataset {first!r}: expected NAME=SOURCE, e.g. "
                              "web10k=mslr-web10k:1.")
        if name in datasets:
            raise usage_error(f"--dataset {name!r} is given twice; give each data set its own "
                              "name.")
        for other in more:
            # "--dataset a=x.txt b=y.txt" means two data sets to a reader, one to argparse
            if "=" in other and not os.path.exists(other):
                raise usage_error(f"--dataset {first} {other}: {other!r} looks like another "
                                  "data set, but the SOURCEs after the first are pooled into "
                                  f"{name!r}; repeat --dataset for each data set: --dataset "
                                  f"{first} --dataset {other}.")
        datasets[name] = [source, *more]
    return datasets


def seeds_of(args):
    """The ``(unit_seed, seed)`` repeats of ``--repeats``/``--seeds`` (one repeat of
    ``--seed`` without them)."""
    from ..benchmark import repeat_seeds

    try:
        return repeat_seeds(args.seed, getattr(args, "repeats", None),
                            getattr(args, "seeds", None))
    except ValueError as exc:
        raise usage_error(f"--seeds: {exc}") from None
