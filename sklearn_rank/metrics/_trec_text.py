"""trec_eval's output, byte for byte: the text of a :class:`TrecEvalResult`.

What ``TrecEvalResult.to_text`` and ``TrecEvalResult.write`` print, as trec_eval prints it
(``meas_print_single.c``, ``meas_print_final.c``): one line per measure,
``measure<TAB>query<TAB>value``, the measure's name padded to 22 characters, values to 4
decimals, counts as integers, ``relstring`` quoted. The per-query lines (``-q``, tens of MB
on a large run) are built a block at a time as rows of a byte matrix, without a Python loop
per line. numpy only: the trec_eval command imports this, and neither scikit-learn, SciPy
nor pandas.
"""

import numpy as np

_WIDTH = 22  # trec_eval's "%-22s"
# Lines of -q assembled and handed out per block of this many lines (a few MB)
_LINES_PER_BLOCK = 1 << 16


def text_pieces(result, *, per_query=False, summary=True):
    """The output of ``result``, in pieces of text to write one after the other: with
    ``per_query``, each query's lines (trec_eval ``-q``), then, with ``summary``, the
    ``all`` lines (trec_eval ``-n`` leaves them out)."""
    if per_query:
        yield from _query_lines(list(result.per_query.items()), result.query_ids)
    lines = []
    if summary:
        for name, value in result.summary.items():
            # runid's tag and the counts as they are, the others to 4 decimals
            shown = f"{value:6.4f}" if isinstance(value, float) else value
            lines.append(f"{name:<{_WIDTH}}\tall\t{shown}\n")
    yield "".join(lines)


def _query_lines(shown, query_ids):
    """The -q lines of the measures ``shown`` (``[(name, values per query)]``), as
    trec_eval prints them, in blocks of lines: query by query, every measure of a query,
    then the next query.

    Each line is built as fixed-width byte fields padded with NUL bytes (the measure's
    name padded to 22, the query id, the value), one row of a matrix per line, and the NUL
    bytes dropped at once: no Python loop per line. The files hold no NUL byte
    (``read_trec`` refuses them), so the query ids and the tag cannot lose one.
    """
    if not shown or not len(query_ids):
        return
    ids = _bytes_matrix(np.strings.encode(np.asarray(query_ids, dtype=str), "utf-8"))
    heads = _bytes_matrix(np.array([f"{name:<{_WIDTH}}\t".encode() for name, _ in shown]))
    values = [_value_bytes(column) for _, column in shown]
    width_of_value = max(value.shape[1] for value in values)
    n_items = len(shown)
    fields = (heads.shape[1], ids.shape[1] + 1, width_of_value + 1)
    width = sum(fields)
    per_block = max(1, _LINES_PER_BLOCK // n_items)
    for start in range(0, len(query_ids), per_block):
        stop = min(start + per_block, len(query_ids))
        block = np.zeros((stop - start, n_items, width), dtype=np.uint8)
        block[:, :, :fields[0]] = heads
        at = fields[0]
        block[:, :, at:at + ids.shape[1]] = ids[start:stop, None, :]
        block[:, :, at + ids.shape[1]] = ord("\t")
        at += fields[1]
        for j, value in enumerate(values):
            block[:, j, at:at + value.shape[1]] = value[start:stop]
        block[:, :, -1] = ord("\n")
        block = block.ravel()
        yield block[block != 0].tobytes().decode("utf-8")


def _bytes_matrix(strings):
    """The bytes of a numpy ``S`` array, one row per string, NUL-padded."""
    strings = np.ascontiguousarray(strings)
    return strings.view(np.uint8).reshape(len(strings), strings.dtype.itemsize)


def _value_bytes(column):
    """Each query's value of a measure as trec_eval prints it (a NUL-padded row of bytes
    per query): relstring's strings quoted, a count (integers) as an integer, the others
    to 4 decimals."""
    if column.dtype.kind == "U":  # relstring
        text = _bytes_matrix(np.strings.encode(column, "ascii"))
        quote = np.full((len(column), 1), ord("'"), dtype=np.uint8)
        return np.hstack([quote, text, quote])
    if column.dtype.kind == "i":
        return _integer_bytes(column)
    return _fixed_bytes(column)


def _integer_bytes(numbers):
    """int64 numbers written in decimal, as ``str(int)``: a NUL-padded row per number."""
    negative = numbers < 0
    magnitude = np.abs(numbers).astype(np.uint64)
    n_digits = len(str(int(magnitude.max()))) if len(magnitude) else 1
    out = np.zeros((len(numbers), 1 + n_digits), dtype=np.uint8)
    out[negative, 0] = ord("-")
    rest = magnitude
    for j in range(n_digits, 0, -1):
        out[:, j] = rest % 10 + ord("0")
        rest = rest // 10
    # leading zeros are padding, the last digit stays
    out[:, 1:n_digits][np.cumsum(out[:, 1:n_digits] != ord("0"), axis=1) == 0] = 0
    return out


# 2**52: above it the scaled value has no fractional bits to round
_EXACT_SCALED = 2.0**52


def _fixed_bytes(values):
    """Floats written as ``f"{value:6.4f}"`` writes them, a NUL-padded row per value.

    ``value * 10**4`` rounded to the nearest integer gives the digits, except where the
    product, rounded itself, lies within its rounding error of a half: those values (and
    NaN, infinities and huge values) are written by Python's own formatting, which rounds
    the exact decimal value of the double as C's printf does.
    """
    scaled = values * 1e4
    rounded = np.rint(scaled)
    with np.errstate(invalid="ignore"):
        exact = ((np.abs(scaled) < _EXACT_SCALED)
                 & (np.abs(scaled - np.floor(scaled) - 0.5) > 2 * np.spacing(np.abs(scaled))))
    digits = np.where(exact, np.abs(rounded), 0).astype(np.int64)
    whole = _integer_bytes(digits // 10_000)
    whole[np.signbit(values), 0] = ord("-")  # -0.0000, as printf writes a negative value
    fraction = digits % 10_000
    decimals = np.empty((len(values), 5), dtype=np.uint8)
    decimals[:, 0] = ord(".")
    for j in range(4, 0, -1):
        decimals[:, j] = fraction % 10 + ord("0")
        fraction //= 10
    out = np.hstack([whole, decimals])
    others = np.flatnonzero(~exact)
    if len(others):
        written = np.array([f"{value:6.4f}".encode() for value in values[others].tolist()])
        width = max(out.shape[1], written.dtype.itemsize)
        out = np.hstack([out, np.zeros((len(out), width - out.shape[1]), dtype=np.uint8)])
        out[others] = 0
        out[others, :written.dtype.itemsize] = _bytes_matrix(written)
    return out
