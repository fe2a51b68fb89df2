"""Reading the ranges of a rules file (src/select/rules.hpp's grammar) in the Python tests:
sizes with K, M, G suffixes (base 2) and the ranges *, N, N-, N-M."""

SUFFIXES = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def number(text):
    factor = SUFFIXES.get(text[-1:], 1)
    return int(text[:-1] if factor > 1 else text) * factor


def covers(range_text, value):
    if range_text == "*":
        return True
    low, dash, high = range_text.partition("-")
    if not dash:
        return number(low) == value
    return number(low) <= value and (not high or value <= number(high))
