"""trec_eval's measure names (placeholder until helper T writes the table)."""


def parse_trec_name(name):
    return None
