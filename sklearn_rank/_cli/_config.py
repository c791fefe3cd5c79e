"""``--config FILE``: a TOML or JSON file that describes a run of ``cv`` or ``tune``.

The file holds the options of the command by their long names, with underscores
(``n_jobs = 2``), and three structured keys::

    seed = 0
    metrics = ["ndcg@10", "err@10"]          # tune: metric = "ndcg@10"

    [data]                                   # or: data = "train.txt"
    train = "train.txt"                      # a path, a list of paths, or "mslr-web10k:1"
    test = "test.txt"

    [splitter]
    n_splits = 5

    [[models]]                               # tune: one model
    model = "lightgbm"                       # a name of --model, or "MODULE:CLASS"
    label = "lambdarank"
    params = { n_estimators = 200 }          # as --set
    grid = { num_leaves = [15, 31] }         # tune: as --param

Precedence: an option given on the command line overrides the file, which overrides the
command's defaults. ``--model`` on the command line replaces the file's models; ``--set``
before any ``--model`` applies to every model, the file's included. Relative paths in the file
are relative to the file's folder. Unknown keys, and values of the wrong type, are usage
errors that name the key and the keys known.
"""

import json
import os
from pathlib import Path

from ._common import CLIError, check_input_file, close_matches, usage_error


def add_config_option(parser, command):
    parser.add_argument(
        "--config", metavar="FILE",
        help=f"a TOML or JSON file of the options of {command} (models with their parameters"
        + (" and grids" if command == "tune" else "") + ", metrics, splitter, data, seed...); "
        "options on the command line override it")


def _read(path):
    """The file's table, or a usage error saying where its syntax is wrong."""
    suffix = path.suffix.lower()
    text = path.read_bytes()
    if suffix == ".json":
        try:
            data = json.loads(text.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise usage_error(f"--config {str(path)!r} is not UTF-8 text (byte "
                              f"{exc.start}).") from None
        except json.JSONDecodeError as exc:
            raise usage_error(f"--config {str(path)!r} is not valid JSON: {exc.msg} (line "
                              f"{exc.lineno}, column {exc.colno}).") from None
        except (RecursionError, ValueError) as exc:
            raise _unreadable(path, "JSON", exc) from None
    elif suffix == ".toml":
        toml = _toml_reader(path)
        try:
            data = toml.loads(text.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise usage_error(f"--config {str(path)!r} is not UTF-8 text (byte "
                              f"{exc.start}).") from None
        except toml.TOMLDecodeError as exc:
            raise usage_error(f"--config {str(path)!r} is not valid TOML: {exc}.") from None
        except (RecursionError, ValueError) as exc:
            raise _unreadable(path, "TOML", exc) from None
    else:
        raise usage_error(f"--config {str(path)!r}: unknown file type {suffix or '(none)'!r}; "
                          "expected .toml or .json.")
    if not isinstance(data, dict):
        raise usage_error(f"--config {str(path)!r}: expected a table of options at the top "
                          f"level, got a {type(data).__name__}.")
    return data


def _unreadable(path, kind, exc):
    """The usage error of a file that parses as ``kind`` but that Python cannot hold: arrays
    or tables nested beyond its recursion limit, integers of more than 4,300 digits."""
    what = ("arrays or tables nested too deep to read" if isinstance(exc, RecursionError)
            else f"a value Python cannot read ({exc})".replace(
                "; use sys.set_int_max_str_digits() to increase the limit", ""))
    return usage_error(f"--config {str(path)!r}: expected the options of the command as "
                       f"{kind}, got {what}. Give each option its plain value, e.g. "
                       "seed = 0 or params = {{ num_leaves = 31 }}.".replace("{{", "{")
                       .replace("}}", "}"))


def _toml_reader(path):
    """``tomllib`` (Python 3.11+), else ``tomli``, else a usage error."""
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            raise usage_error(
                f"--config {str(path)!r}: reading TOML needs Python 3.11 or newer, or the "
                "tomli package (pip install tomli); or write the file as JSON.") from None
    return tomllib


# ----------------------------------------------------------------------------------------
# Values: each reader takes (value, key, base folder) and returns the option's value


class _Reader:
    """A value reader with the description of what it expects, for messages."""

    def __init__(self, expected, read):
        self.expected = expected
        self.read = read


def integer(minimum, maximum=None, why=""):
    def read(value, key, base):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (
                maximum is not None and value > maximum):
            raise ValueError
        return value

    if maximum is None:
        return _Reader(f"an integer of at least {minimum}", read)
    return _Reader(f"an integer from {minimum} to {maximum}{why}", read)


def seed():
    from ._common import MAX_SEED

    return integer(0, MAX_SEED, " (numpy's seeds are 32-bit integers)")


def text():
    def read(value, key, base):
        if not isinstance(value, str) or not value:
            raise ValueError
        return value

    return _Reader("a string", read)


def texts():
    def read(value, key, base):
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not values or not all(
                isinstance(v, str) and v for v in values):
            raise ValueError
        return list(values)

    return _Reader("a string or a list of strings", read)


def choice(options):
    def read(value, key, base):
        if value not in options:
            raise ValueError
        return value

    return _Reader(f"one of {', '.join(map(repr, options))}", read)


def boolean():
    def read(value, key, base):
        if not isinstance(value, bool):
            raise ValueError
        return value

    return _Reader("true or false", read)


def path():
    def read(value, key, base):
        if not isinstance(value, str) or not value:
            raise ValueError
        return _resolve(value, base)

    return _Reader("a path", read)


def sources():
    """Paths (each relative to the file's folder) or a data set name, as ``--data``."""
    from ._common import dataset_name

    def read(value, key, base):
        values = texts().read(value, key, base)
        return [v if _is_dataset(v, dataset_name) else _resolve(v, base) for v in values]

    return _Reader("a path, a list of paths, or a data set name such as 'mslr-web10k:1'",
                   read)


def metric():
    from ._common import metric_name

    def read(value, key, base):
        if not isinstance(value, str):
            raise ValueError
        try:
            return metric_name(value)
        except Exception as exc:  # argparse.ArgumentTypeError: the registry's message
            raise usage_error(f"{key}: {exc}") from None

    return _Reader("a metric name such as 'ndcg@10'", read)


def metrics():
    def read(value, key, base):
        values = texts().read(value, key, base)
        return [metric().read(v, key, base) for v in values]

    return _Reader("a metric name or a list of them", read)


def _is_dataset(value, dataset_name):
    try:
        return dataset_name(value) is not None
    except CLIError:
        return True  # a data set name with a bad fold: loading says so


def _resolve(value, base):
    expanded = os.path.expanduser(value)
    return expanded if os.path.isabs(expanded) else os.path.normpath(Path(base) / expanded)


# ----------------------------------------------------------------------------------------
# The file


#: The keys of [data] -> (option attribute, reader).
DATA_KEYS = {
    "train": ("data", sources()),
    "test": ("test", sources()),
    "qid_column": ("qid_column", text()),
    "label_column": ("label_column", text()),
    "qid_type": ("qid_type", choice(("str", "int"))),
    "feature_columns": ("feature_columns", texts()),
    "ignore_columns": ("ignore_columns", texts()),
    "data_home": ("data_home", path()),
    "download": ("download", boolean()),
}
SPLITTER_KEYS = {"n_splits": ("n_splits", integer(2))}


def load_config(args, command, keys, defaults):
    """Apply ``--config`` and then ``defaults`` to ``args``, under the command line.

    Parameters
    ----------
    args : argparse.Namespace
        The options; those not given on the command line are None.
    command : str
        ``"cv"`` or ``"tune"``, for messages.
    keys : dict
        The command's top-level keys (besides ``data``, ``splitter`` and ``models``):
        key -> reader.
    defaults : dict
        Option -> default, applied to the options that neither gives.

    Returns
    -------
    models : list of dict
        The ``[[models]]`` entries of the file, checked: ``model``, ``label``, ``params``
        and (tune) ``grid``; empty without a file. ``where`` names each in messages.
    inputs : list of (str, Path)
        The configuration file, as an input that no output may replace.
    """
    models, inputs = [], []
    if getattr(args, "config", None) is not None:
        path = check_input_file(args.config, "--config")
        inputs = [("--config", path)]
        data = _read(path)
        name = f"--config {str(path)!r}"
        base = path.parent
        known = {**{k: (k, r) for k, r in keys.items()}, "data": None, "splitter": None,
                 "models": None}
        _check_keys(data, known, name, f"the keys of 'sklearn-rank {command}'")
        values = {}
        for key, value in data.items():
            if key == "data":
                values.update(_data(value, name, base))
            elif key == "splitter":
                values.update(_table(value, SPLITTER_KEYS, f"{name}, [splitter]", base))
            elif key == "models":
                models = _models(value, name, command)
            else:
                values[key] = _value(keys[key], value, f"{name}: {key}", base)
        for option, value in values.items():
            if getattr(args, option, None) is None:
                setattr(args, option, value)
    for option, value in defaults.items():
        if getattr(args, option, None) is None:
            setattr(args, option, value)
    return models, inputs


def _check_keys(table, known, name, what):
    for key in table:
        if key not in known:
            raise usage_error(f"{name}: unknown key {key!r}.{close_matches(key, list(known))} "
                              f"{what.capitalize()}: {', '.join(known)}.")


def _value(reader, value, where, base):
    try:
        return reader.read(value, where, base)
    except ValueError:
        raise usage_error(f"{where}: expected {reader.expected}, got {value!r}.") from None


def _table(value, keys, where, base):
    if not isinstance(value, dict):
        raise usage_error(f"{where}: expected a table, got {value!r}.")
    _check_keys(value, keys, where, "its keys")
    return {keys[k][0]: _value(keys[k][1], v, f"{where}: {k}", base) for k, v in value.items()}


def _data(value, name, base):
    if not isinstance(value, dict):  # data = "train.txt": the training data alone
        return {"data": _value(sources(), value, f"{name}: data", base)}
    return _table(value, DATA_KEYS, f"{name}, [data]", base)


_MODEL_KEYS = ("model", "label", "params", "grid")


def _models(value, name, command):
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        raise usage_error(f"{name}: models must be a list of tables ([[models]] in TOML), "
                          f"each with a 'model' key; got {value!r}.")
    if command == "tune" and len(value) > 1:
        raise usage_error(f"{name}: tune searches one model; models lists {len(value)}.")
    entries = []
    known = _MODEL_KEYS if command == "tune" else _MODEL_KEYS[:3]
    for i, entry in enumerate(value):
        where = f"{name}, models[{i}]"
        _check_keys(entry, known, where, "the keys of a model")
        if "model" not in entry:
            raise usage_error(f"{where}: no 'model' key; expected a model name such as "
                              "'lightgbm', or MODULE:CLASS.")
        model = _value(text(), entry["model"], f"{where}: model", None)
        label = _value(text(), entry["label"], f"{where}: label", None) if "label" in entry \
            else None
        for key in ("params", "grid"):
            if key in entry and not isinstance(entry[key], dict):
                raise usage_error(f"{where}: {key} must be a table of parameter names and "
                                  f"values, got {entry[key]!r}.")
        entries.append({"model": model, "label": label, "params": entry.get("params", {}),
                        "grid": entry.get("grid"), "where": where})
    return entries
